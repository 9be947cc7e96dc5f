package dev.sika

import java.io.File
import java.lang.reflect.Constructor
import java.lang.reflect.Member
import java.lang.reflect.Method
import java.lang.reflect.Modifier
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * B122: the jar's public API as Java sees it (what `javap -public` lists, less the synthetic
 * members javac cannot call), against the allow-list kept in `bindings/kotlin/api/`:
 * `java-api.txt` is the SDK, `java-api-ffi.txt` the FFI plumbing Java can still reach (issue 26
 * item 4 removes it; each line is sorted there by [isPlumbing], a rule, not by hand). A public
 * class or member the lists lack, or one they name that is gone, fails the test; regenerate
 * both after a deliberate change with `scripts/kotlin-java-api` and review the diff.
 */
class JavaApiTest {
    private val apiDir = File(System.getProperty("sika.java.api.dir") ?: "api")

    /** Each public class of package dev.sika (nested ones whose enclosing classes are public too) and its public members. */
    private fun javaApi(): List<String> = compiledClasses()
        .filter { visibleFromJava(it) }
        .flatMap { type ->
            val members = type.declaredConstructors.filter { visible(it) }.map { describe(it) } +
                type.declaredMethods.filter { visible(it) && !it.isBridge }.map { describe(it) } +
                type.declaredFields.filter { visible(it) }.map { it.toString() }
            listOf(describe(type)) + members.map { "${type.name}: $it" }
        }
        .sorted()

    private fun visibleFromJava(type: Class<*>): Boolean =
        !type.isSynthetic && !type.isAnonymousClass && !type.isLocalClass &&
            generateSequence(type) { it.enclosingClass }.all { Modifier.isPublic(it.modifiers) }

    private fun visible(member: Member): Boolean =
        !member.isSynthetic && (Modifier.isPublic(member.modifiers) || Modifier.isProtected(member.modifiers))

    private fun describe(type: Class<*>): String {
        val kind = when {
            type.isInterface -> "interface"
            type.isEnum -> "enum"
            else -> "class"
        }
        val shown = Modifier.PUBLIC or Modifier.FINAL or Modifier.STATIC or (if (type.isInterface) 0 else Modifier.ABSTRACT)
        val modifiers = Modifier.toString(type.modifiers and shown)
        return listOf(modifiers, kind, type.name).filter { it.isNotEmpty() }.joinToString(" ")
    }

    private fun describe(constructor: Constructor<*>): String = constructor.toString()

    private fun describe(method: Method): String = method.toString()

    @Test
    fun testB122TheJarsJavaApiIsTheAllowList() {
        val api = javaApi()
        assertTrue(api.any { it == "public final class dev.sika.BlockingClient" }, "not the bindings' classes: ${api.take(5)}")
        val (plumbing, sdk) = api.partition { isPlumbing(it) }
        if (System.getProperty("sika.java.api.update") == "true") {
            apiDir.mkdirs()
            File(apiDir, "java-api.txt").writeText(sdk.joinToString("\n", postfix = "\n"))
            File(apiDir, "java-api-ffi.txt").writeText(plumbing.joinToString("\n", postfix = "\n"))
        }
        assertListing("java-api.txt", sdk)
        assertListing("java-api-ffi.txt", plumbing)
    }

    @Test
    fun testB123JavaSeesNoSuspendMethodOnlyItsTwins() {
        // Java could call a suspend method only with a Continuation of its own: it sees the
        // `...Async` twin (and BlockingClient's method) instead; Kotlin still calls it.
        val suspends = compiledClasses().filter { visibleFromJava(it) }
            .flatMap { type -> type.declaredMethods.map { type to it } }
            .filter { (_, method) -> visible(method) && method.parameterTypes.lastOrNull() == kotlin.coroutines.Continuation::class.java }
            .map { (type, method) -> "${type.simpleName}.${method.name}" }
            // UniFFI's own `internal suspend fun uniffiRustCallAsync` is public to Java (Kotlin's
            // `internal` is not a JVM access): plumbing, listed in java-api-ffi.txt.
            .filter { it != "Sika_ffiKt.uniffiRustCallAsync" }
        assertEquals(emptyList<String>(), suspends, "suspend methods Java sees")
        val twins = Client::class.java.methods.filter { it.name.endsWith("Async") && !it.isSynthetic }.map { it.name }.toSet()
        assertTrue(twins.containsAll(listOf("verifyTransactionAsync", "handleWebhookAsync", "awaitFinalStatusAsync")), "$twins")
    }

    private fun assertListing(name: String, actual: List<String>) {
        val file = File(apiDir, name)
        val expected = if (file.exists()) file.readLines().filter { it.isNotBlank() } else emptyList()
        val added = actual - expected.toSet()
        val removed = expected - actual.toSet()
        assertEquals(
            "", (added.map { "+ $it" } + removed.map { "- $it" }).joinToString("\n"),
            "the jar's Java API differs from ${file.path} (+ public now, not listed; - listed, gone): " +
                "if deliberate, run scripts/kotlin-java-api and review the diff",
        )
    }

    companion object {
        /**
         * FFI plumbing: UniFFI's converters, buffers, handles and callback structures, the
         * library's raw functions, and the `suspend` methods Java cannot call (their last
         * parameter a `Continuation`).
         */
        private val PLUMBING = Regex(
            """\b(FfiConverter\w*|\w*Uniffi\w*|uniffi\w*|RustBuffer\w*|ForeignBytes\w*|NoHandle|UniffiWithHandle|""" +
                """JavaLangRefCleanable|InternalException|Disposable|kotlin\.coroutines\.Continuation|com\.sun\.jna\.\w+)\b""",
        )

        fun isPlumbing(line: String): Boolean = PLUMBING.containsMatchIn(line)
    }
}
