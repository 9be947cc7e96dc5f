package dev.sika

import com.sun.jna.NativeLibrary
import com.sun.jna.Platform
import java.io.File
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * B54 on the JVM: a JVM that exits while suspend calls are in flight (some hanging, others
 * answered all through the exit, so an answer wakes a coroutine from one of the SDK's threads
 * as the JVM goes down) exits with its own code and nothing on its output. Python aborted in
 * this situation (a thread entering the interpreter as it finalized); the JVM is checked here
 * both ways it exits: `System.exit` and the end of `main` (daemon threads left running), and
 * with every answer coming after the VM is destroyed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShutdownTest {
    private val sandbox = Sandbox()

    @AfterAll
    fun stopSandbox() = sandbox.close()

    @Test
    fun testB54AJvmExitingBySystemExitWithSuspendCallsInFlightExitsClean() = exitsClean("System.exit")

    @Test
    fun testB54AJvmEndingMainWithSuspendCallsInFlightExitsClean() = exitsClean("the end of main")

    private fun exitsClean(exitBy: String) {
        sandbox.fault("/transaction/verify", "hang", 10_000, JsonObject(emptyMap()))
        sandbox.fault("/bank", "delay", 100_000, JsonObject(mapOf("delay_ms" to JsonPrimitive(ANSWER_DELAY_MS))))
        val java = File(System.getProperty("java.home"), "bin/java").path
        // The exit race is a matter of timing: several rounds, a few JVMs side by side.
        repeat(ROUNDS) { round ->
            val children = (0 until SIDE_BY_SIDE).map {
                ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), ExitWithCallsInFlightMain::class.java.name, sandbox.url, KEY, exitBy)
                    .redirectErrorStream(true)
                    .start()
            }
            for (child in children) {
                val finished = child.waitFor(60, TimeUnit.SECONDS)
                val output = child.inputStream.bufferedReader().readText()
                if (!finished) child.destroyForcibly()
                assertTrue(finished, "$exitBy, round $round: the JVM did not exit: $output")
                assertEquals(0, child.exitValue(), "$exitBy, round $round: $output")
                assertEquals(listOf("answers before the exit: yes"), output.lines().filter { it.isNotEmpty() }, "$exitBy, round $round: $output")
            }
        }
    }

    /**
     * Every answer comes after `DestroyJavaVM`: the child's `main` returns while its calls wait
     * for answers the sandbox delays, and its process is held open after the VM is gone (an
     * exit handler reading the child's standard input) until the answers have come and their
     * wakes have run. Before the core asked whether the VM still exists, each answer made JNA
     * print "Can't attach native thread to VM for callback" here, in every run.
     */
    @Test
    fun testB54AnswersComingAfterTheJvmIsDestroyedWakeNothingAndPrintNothing() = Sandbox().use { late ->
        late.fault("/transaction/verify", "delay", 100_000, JsonObject(mapOf("delay_ms" to JsonPrimitive(LATE_ANSWER_DELAY_MS))))
        val java = File(System.getProperty("java.home"), "bin/java").path
        val children = (0 until SIDE_BY_SIDE).map {
            ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), MainReturnsWithCallsInFlightMain::class.java.name, late.url, KEY, "$LATE_CALLS")
                .redirectErrorStream(true)
                .start()
        }
        val outputs = children.map { child -> child.inputStream.bufferedReader() }
        val firstLines = outputs.map { it.readLine() }
        assertEquals(List(SIDE_BY_SIDE) { "calls in flight: $LATE_CALLS" }, firstLines)
        // Every call reached the sandbox (so each has an answer coming), then the answers came.
        val started = System.nanoTime()
        while (late.requests().count { it.path().startsWith("/transaction/verify") } < SIDE_BY_SIDE * LATE_CALLS) {
            assertTrue(System.nanoTime() - started < 60_000_000_000, "the calls never reached the sandbox: ${late.requests()}")
            Thread.sleep(20)
        }
        Thread.sleep(LATE_ANSWER_DELAY_MS + AFTER_THE_ANSWERS_MS)
        for ((child, output) in children.zip(outputs)) {
            child.outputStream.close() // the exit handler returns, the process ends
            val finished = child.waitFor(60, TimeUnit.SECONDS)
            val rest = output.readText()
            if (!finished) child.destroyForcibly()
            assertTrue(finished, "the process did not exit: $rest")
            assertEquals(0, child.exitValue(), rest)
            assertEquals("", rest, "output after main returned")
        }
    }

    private fun JsonObject.path(): String = getValue("path").jsonPrimitive.content

    private companion object {
        const val ROUNDS = 4
        const val SIDE_BY_SIDE = 3
        const val ANSWER_DELAY_MS = 60
        const val LATE_CALLS = 40
        const val LATE_ANSWER_DELAY_MS = 1_500L
        const val AFTER_THE_ANSWERS_MS = 1_000L
    }
}

/**
 * The JVM of [ShutdownTest]: daemon threads whose coroutines start four verifications that hang
 * and a refresh of the bank list every few milliseconds (each answered 60 ms later), then the
 * exit, once answers are coming in.
 */
object ExitWithCallsInFlightMain {
    @JvmStatic
    fun main(args: Array<String>) {
        val (url, key, exitBy) = args
        val client = Client(ClientConfig(SecretKey(key), url, timeoutMs = 10_000))
        val answered = AtomicInteger()
        Thread {
            runBlocking(Dispatchers.Default) {
                repeat(4) { launch { runCatching { client.verifyTransaction("HANG-$it") } } }
                while (true) {
                    launch { runCatching { client.refreshBanks("GH") }.onSuccess { answered.incrementAndGet() } }
                    delay(4)
                }
            }
        }.apply { isDaemon = true }.start()
        val started = System.nanoTime()
        while (answered.get() == 0 && System.nanoTime() - started < 20_000_000_000) Thread.sleep(5)
        Thread.sleep(50)
        println("answers before the exit: ${if (answered.get() > 0) "yes" else "no"}")
        System.out.flush()
        if (exitBy == "System.exit") System.exit(0)
    }
}

/**
 * The JVM of [ShutdownTest]'s late answers: starts its verifications (each sent before `launch`
 * returns: the coroutine runs undispatched to its first suspension, where the core spawns the
 * request) and returns from `main` at once. An exit handler registered with the C library
 * (`getchar`, called with an argument it ignores, blocking until the test closes standard input) keeps the process alive after
 * `DestroyJavaVM`, so the answers come to a process whose VM is gone.
 */
object MainReturnsWithCallsInFlightMain {
    @OptIn(DelicateCoroutinesApi::class)
    @JvmStatic
    fun main(args: Array<String>) {
        val (url, key, calls) = args
        val client = Client(ClientConfig(SecretKey(key), url, timeoutMs = 30_000))
        val libc = NativeLibrary.getInstance(Platform.C_LIBRARY_NAME)
        // `__cxa_atexit(handler, argument, dso)`: `atexit` itself is no exported symbol in glibc.
        val registered = libc.getFunction("__cxa_atexit").invokeInt(arrayOf(libc.getFunction("getchar"), null, null))
        check(registered == 0) { "__cxa_atexit failed" }
        repeat(calls.toInt()) {
            GlobalScope.launch(Dispatchers.Default, start = CoroutineStart.UNDISPATCHED) { runCatching { client.verifyTransaction("LATE-$it") } }
        }
        println("calls in flight: $calls")
        System.out.flush()
    }
}
