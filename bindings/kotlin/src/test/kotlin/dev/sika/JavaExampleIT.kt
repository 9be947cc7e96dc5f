package dev.sika

import java.io.File
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import java.util.jar.JarFile
import javax.tools.ToolProvider
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * B44: the Java example (examples/java), compiled by javac against the built jar and its
 * runtime classpath, run against the sandbox on this JDK (17) and on the newest JDK the machine
 * has (`$SIKA_NEWEST_JAVA`, installed by scripts/test-kotlin), where JNA's native access must
 * be enabled by the documented flag. Run by Failsafe after `package`, so the jar exists.
 *
 * B199: javac compiles the example with `-Xlint:all -Werror` on the jar's classpath without
 * kotlinx.serialization and without Jackson, as a plain-Java project has it (ADR 0069, 0079: no
 * generated class names either library, so javac finds no annotation it cannot read; with
 * Jackson's annotations still on the records it failed with 14 `classfile` warnings). The
 * example runs on that classpath too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JavaExampleIT {
    private val jar = File(System.getProperty("sika.jar"))
    private val classpath = jar.path + File.pathSeparator + File(System.getProperty("sika.runtime.classpath")).readText().trim()
        .split(File.pathSeparator).filterNot { File(it).name.let { name -> "kotlinx-serialization" in name || name.startsWith("jackson-") } }
        .joinToString(File.pathSeparator)
    private val classes: File by lazy(::compile)
    /** Set by scripts/test-kotlin, which always finds or installs one; a bare `mvn verify` skips those runs. */
    private val newestJava: String
        get() = System.getenv("SIKA_NEWEST_JAVA").also {
            assumeTrue(it != null, "SIKA_NEWEST_JAVA is not set: scripts/test-kotlin sets it")
        }!!

    /** What the run prints for the order and the two failing look-ups the test sets up. */
    private val expectedLines = listOf(
        "   InvalidInput: field amount, ",
        "   ChargeOutcomeUnknown: following JAVA-ORDER-1 instead of charging again",
        "   final status: ",
        "   Confirmed: ship (paid 25.50)",
        "   Fulfil: ship once, answer HTTP 200",
        "   RateLimited: retry after 30 s",
        "   Api: HTTP 500, ",
        // The sandbox answers with its own X-Request-Id, which the SDK prefers (ADR 0053).
        "   request id: req_",
    )

    private fun compile(): File {
        val out = Files.createTempDirectory("sika-java-example").toFile().also { it.deleteOnExit() }
        val sources = File(System.getProperty("sika.java.example")).walk().filter { it.extension == "java" }.map { it.path }.toList()
        assertTrue(sources.isNotEmpty(), "no Java sources in examples/java")
        val errors = java.io.ByteArrayOutputStream()
        val javac = ToolProvider.getSystemJavaCompiler()
        val status = javac.run(null, errors, errors, "--release", "17", "-Xlint:all", "-Werror", "-cp", classpath, "-d", out.path, *sources.toTypedArray())
        assertEquals(0, status, "javac failed:\n$errors")
        return out
    }

    private class Run(val status: Int, val stdout: String, val stderr: String)

    /** Runs the example with [java] and [flags] against a fresh sandbox set up to fail as the example expects. */
    private fun runExample(java: String, vararg flags: String): Run =
        runJava(java, flags.toList(), "dev.sika.examples.JavaCheckout", listOf("JAVA-ORDER-1", "JAVA-BUSY", "JAVA-DOWN")) { sandbox ->
            // The charge reaches the service but its answer is lost; two look-ups meet a 429 and a 500.
            sandbox.fault("/charge", "after_processing", "then" to "status", "status" to 502)
            sandbox.fault("/transaction/verify/JAVA-BUSY", "status", 2, JsonObject(mapOf("status" to JsonPrimitive(429), "retry_after" to JsonPrimitive(30))))
            sandbox.fault("/transaction/verify/JAVA-DOWN", "status", 2, JsonObject(mapOf("status" to JsonPrimitive(500))))
        }

    /** Runs [mainClass] of the compiled examples with [java], [flags] and [args] against a fresh sandbox, set up by [setUp]. */
    private fun runJava(java: String, flags: List<String>, mainClass: String, args: List<String>, setUp: (Sandbox) -> Unit): Run = Sandbox().use { sandbox ->
        setUp(sandbox)
        val stdout = File.createTempFile("java-example", ".out").also { it.deleteOnExit() }
        val stderr = File.createTempFile("java-example", ".err").also { it.deleteOnExit() }
        val command = listOf(java) + flags + listOf("-cp", classes.path + File.pathSeparator + classpath, mainClass) + args
        val process = ProcessBuilder(command).redirectOutput(stdout).redirectError(stderr)
            .apply { environment().putAll(mapOf("SIKA_BASE_URL" to sandbox.url, "SIKA_SECRET_KEY" to KEY)) }
            .start()
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly()
            error("the example did not end within 60 s:\n${stdout.readText()}\n${stderr.readText()}")
        }
        Run(process.exitValue(), stdout.readText(), stderr.readText())
    }

    private fun assertFlowRan(run: Run) {
        val report = "stdout:\n${run.stdout}\nstderr:\n${run.stderr}"
        assertEquals(0, run.status, report)
        for (line in expectedLines) {
            assertTrue(run.stdout.lines().any { it.startsWith(line) }, "missing `$line` in\n$report")
        }
        assertFalse("${run.stdout}${run.stderr}".contains(KEY), "the key leaked")
    }

    private fun majorVersion(java: String): Int {
        val process = ProcessBuilder(java, "-XshowSettings:properties", "-version").redirectErrorStream(true).start()
        val text = process.inputStream.bufferedReader().readText()
        process.waitFor()
        val version = Regex("java\\.specification\\.version = (\\d+)").find(text) ?: error("no version from $java:\n$text")
        return version.groupValues[1].toInt()
    }

    private fun nativeAccessWarnings(stderr: String) =
        stderr.lines().filter { it.contains("restricted method", ignoreCase = true) || it.contains("native access", ignoreCase = true) }

    @Test
    fun testB199JavacCompilesTheExampleWithoutKotlinxOrJacksonAndWithoutAWarning() {
        assertFalse(classpath.contains("kotlinx-serialization"), classpath)
        assertFalse(classpath.contains("jackson"), "a plain-Java consumer without Jackson: $classpath")
        assertTrue(classpath.contains("kotlin-stdlib") && classpath.contains("jna"), classpath)
        assertTrue(classes.walk().any { it.name == "JavaCheckout.class" }, "compiled with -Xlint:all -Werror")
    }

    @Test
    fun testB44TheJavaExampleRunsOnJdk17() {
        val java = File(System.getProperty("java.home"), "bin/java").path
        assertEquals(17, majorVersion(java))
        val run = runExample(java)
        assertFlowRan(run)
        assertEquals("", run.stderr, "JDK 17 prints nothing on standard error")
    }

    @Test
    fun testB44TheJavaExampleRunsOnTheNewestJdkWithoutNativeAccessWarnings() {
        assertTrue(majorVersion(newestJava) >= 22, "$newestJava is not a JDK 22+")
        val run = runExample(newestJava, "--enable-native-access=ALL-UNNAMED")
        assertFlowRan(run)
        assertEquals(emptyList<String>(), nativeAccessWarnings(run.stderr), run.stderr)
        assertFalse(run.stderr.contains("WARNING"), run.stderr)
    }

    /** Records why the README asks for the flag: without it, JDK 24+ warns as JNA loads the library. */
    @Test
    fun testB44WithoutTheFlagTheNewestJdkWarnsAboutRestrictedMethods() {
        val major = majorVersion(newestJava)
        val run = runExample(newestJava)
        assertFlowRan(run)
        if (major >= 24) {
            assertTrue(nativeAccessWarnings(run.stderr).isNotEmpty(), "JDK $major printed no restricted-method warning:\n${run.stderr}")
        }
    }

    /**
     * B182: Java calls every ledger operation (JavaLedger.java) on a SQLite ledger; B193: as
     * plain calls of `BlockingLedger` over a `BlockingClient`: a charge through the ledger, `expect`, a
     * webhook delivered twice (one `Fulfil`, then "already fulfilled"), `markFulfilled`,
     * `payment`, `settle`, and `reconcile` fulfilling the order paid some other way.
     */
    @Test
    fun testB182JavaCallsEveryLedgerOperation() {
        val java = File(System.getProperty("java.home"), "bin/java").path
        val run = runJava(java, emptyList(), "dev.sika.examples.JavaLedger", listOf("JAVA-LEDGER-1", "JAVA-LEDGER-2")) { sandbox ->
            // Paid some other way (a bank transfer the shop expects by hand).
            sandbox.seedTransaction(transactionObject("JAVA-LEDGER-2", "successful", "25.50"))
        }
        val report = "stdout:\n${run.stdout}\nstderr:\n${run.stderr}"
        assertEquals(0, run.status, report)
        assertEquals(
            listOf(
                "1. Charging JAVA-LEDGER-1 through the ledger (the order's figures recorded first):",
                "   HTTP 200",
                "2. An order paid some other way, expected by hand:",
                "   expected JAVA-LEDGER-2",
                "3. The webhook, delivered twice:",
                "   Fulfil: ship JAVA-LEDGER-1 once",
                "   marked fulfilled",
                "   answer HTTP 200",
                "   AlreadyFulfilled: do not ship",
                "   answer HTTP 200",
                "4. Its record: last status successful, fulfilled true, claims offered 1",
                "5. The order page settles it: AlreadyFulfilled",
                "6. Reconciling the payments still open:",
                "   reconciled JAVA-LEDGER-2: Fulfil: ship once",
                "   JAVA-LEDGER-2 fulfilled: true",
            ),
            run.stdout.trimEnd().lines(),
            report,
        )
        assertEquals("", run.stderr, report)
        assertFalse("${run.stdout}${run.stderr}".contains(KEY), "the key leaked")
    }

    @Test
    fun testB186JavaBuildsATransactionForItsOwnTestsWithoutItsDescriptiveFields() {
        val java = File(System.getProperty("java.home"), "bin/java").path
        val run = runJava(java, emptyList(), "dev.sika.examples.JavaTestDoubles", emptyList()) {}
        val report = "stdout:\n${run.stdout}\nstderr:\n${run.stderr}"
        assertEquals(0, run.status, report)
        assertEquals(
            listOf(
                "ship JAVA-DOUBLE-1 (25.50 GHS)",
                "wait for JAVA-DOUBLE-2",
                "do not ship JAVA-DOUBLE-3",
                "defaults: customer null, custom fields 0, created null",
                // B194: `Sika.transactionFromJson`, a package function as Java calls it.
                "read back equal: true",
            ),
            run.stdout.trimEnd().lines(),
            report,
        )
    }

    @Test
    fun testB44TheJarDeclaresNativeAccessInItsManifest() {
        JarFile(jar).use { file ->
            assertEquals("ALL-UNNAMED", file.manifest.mainAttributes.getValue("Enable-Native-Access"))
            assertTrue(file.getEntry("linux-x86-64/libsika_ffi.so") != null, "the jar carries the library")
        }
    }
}
