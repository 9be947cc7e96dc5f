package dev.sika

import java.io.File
import java.lang.reflect.Modifier
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * The generated API as Java and Kotlin users meet it, with no hand-written layer over it: every
 * public method callable from Java (B34), and the core's documentation in the Kotlin source (B35).
 */
class GeneratedApiTest {
    @Test
    fun testB34NoPublicMethodHasAMangledName() {
        val classes = compiledClasses()
        assertTrue(classes.any { it.name == "dev.sika.SikaException\$Api" }, "not the bindings' classes: $classes")
        // Kotlin gives a method that takes or returns an unsigned (inline class) value a name such
        // as `getHttpStatus-Mh2AYeg`, which Java cannot write. Not API, so not checked: UniFFI's
        // converters (public only so that other UniFFI components can reach them, `@suppress`ed
        // in the docs; their `allocationSize` returns a ULong) and Kotlin-internal members, whose
        // JVM names end in `$sika`.
        val mangled = classes
            .filter { Modifier.isPublic(it.modifiers) && !FfiConverter::class.java.isAssignableFrom(it) }
            .flatMap { type -> type.declaredMethods.map { type to it } }
            .filter { (_, method) -> Modifier.isPublic(method.modifiers) && !method.isSynthetic && '$' !in method.name }
            .filter { (_, method) -> '-' in method.name }
            .map { (type, method) -> "${type.name}.${method.name}" }
        assertEquals(emptyList<String>(), mangled)
    }

    @Test
    fun testB34IntegersAreJavaIntegers() {
        val javaInt = Int::class.javaPrimitiveType
        val javaLongOrNull = Long::class.javaObjectType
        assertEquals(javaInt, SikaException.Api::class.java.getMethod("getHttpStatus").returnType)
        assertEquals(javaInt, SikaException.UnexpectedResponse::class.java.getMethod("getHttpStatus").returnType)
        assertEquals(javaLongOrNull, SikaException.RateLimited::class.java.getMethod("getRetryAfterSeconds").returnType)
        assertEquals(javaInt, ChargeResponse::class.java.getMethod("getHttpStatus").returnType)
        assertEquals(javaInt, WebhookDecision::class.java.getMethod("httpStatus").returnType)
    }

    @Test
    fun testB34JavaCanCallTheRecordConstructors() {
        // `new ClientConfig(new SecretKey(key), url, null, null, null, null, null, null, null, null, null)`, as the README shows.
        val config = ClientConfig::class.java.getConstructor(
            SecretKey::class.java, String::class.java, Long::class.javaObjectType, Long::class.javaObjectType,
            Int::class.javaObjectType, Long::class.javaObjectType, String::class.java, SecretUrl::class.java,
            Long::class.javaObjectType, Int::class.javaObjectType, Long::class.javaObjectType,
        )
        val options = AwaitOptions::class.java.getConstructor(
            Long::class.javaObjectType, Long::class.javaObjectType, Long::class.javaObjectType, Long::class.javaObjectType,
            Cancellation::class.java,
        )
        // A constructor taking an unsigned value would exist only as a synthetic one Java cannot call.
        assertFalse(config.isSynthetic)
        assertFalse(options.isSynthetic)
        assertEquals(7L, (config.newInstance(SecretKey(KEY), "https://api.example.com", 7L, null, null, null, null, null, null, null, null) as ClientConfig).timeoutMs)
        assertEquals(AwaitOptions(timeoutMs = 600), options.newInstance(null, null, null, 600L, null))
    }

    @Test
    fun testB35TheCoresDocsReachTheKotlinSource() {
        val source = File(requireNotNull(System.getProperty("sika.generated.kotlin")) { "pom.xml sets sika.generated.kotlin" })
        // Each KDoc block as one line of text, its `*` margins and line breaks gone.
        val kdocs = Regex("""/\*\*(.*?)\*/""", RegexOption.DOT_MATCHES_ALL).findAll(source.readText())
            .map { block -> block.groupValues[1].lines().joinToString(" ") { it.trim().removePrefix("*").trim() }.trim() }
            .toList()
        // One doc comment of each kind of item the core exports, word for word as in core/src.
        val coreDocs = listOf(
            "Phone number, international format (`+233...`).", // a record field (Customer)
            "`successful`: the payment completed. The only status that may fulfil an order.", // an enum variant
            "Whether the status will not change by waiting: every status but `Pending` and `Unknown`.", // a method
            "A charge was sent but its outcome is unknown (timeout, broken connection, 5xx, garbled answer)", // an error, two lines in Rust
            "Normalizes a mobile money number of a country (GH, KE, UG, TZ; any case) to `+<code><number>`.", // a function
            "A handle that stops a wait from another task or thread.", // an object
            "Budget of a whole call, retries and the wait for a connection included. Default 20000", // a record of core/src/ffi (ClientConfig)
        )
        for (doc in coreDocs) {
            assertTrue(kdocs.any { doc in it }, "no KDoc of ${source.name} says: $doc")
        }
    }
}
