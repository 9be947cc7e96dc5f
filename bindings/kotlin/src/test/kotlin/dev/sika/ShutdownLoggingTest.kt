package dev.sika

import ch.qos.logback.classic.Level
import ch.qos.logback.classic.Logger
import ch.qos.logback.classic.spi.ILoggingEvent
import ch.qos.logback.core.AppenderBase
import java.io.File
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.TimeUnit
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.slf4j.LoggerFactory

/**
 * B72 (ADR 0036): the core's records keep reaching SLF4J until the application's own shutdown
 * has finished. A child JVM exits (`System.exit`) with calls in flight; its shutdown hook, as
 * Spring's graceful phase does, waits for them and then makes one more call. Each of the four
 * calls ends during the shutdown, and each one's request line must be logged. Before, the
 * package's own shutdown hook closed the sink as the exit began: none of them was.
 */
class ShutdownLoggingTest {
    @Test
    fun testB72RecordsOfCallsEndingDuringShutdownReachSlf4j() = Sandbox().use { sandbox ->
        for (reference in listOf("SHUT-0", "SHUT-1", "SHUT-2", "SHUT-HOOK")) {
            sandbox.seedTransaction(transactionObject(reference, "successful", "5"))
        }
        sandbox.fault("/transaction/verify", "delay", 100_000, JsonObject(mapOf("delay_ms" to JsonPrimitive(400))))
        val java = File(System.getProperty("java.home"), "bin/java").path
        val child = ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), LogsThroughShutdownMain::class.java.name, sandbox.url, KEY)
            .redirectErrorStream(true)
            .start()
        val finished = child.waitFor(60, TimeUnit.SECONDS)
        val output = child.inputStream.bufferedReader().readText()
        if (!finished) child.destroyForcibly()
        assertTrue(finished, "the JVM did not exit: $output")
        assertEquals(0, child.exitValue(), output)
        assertEquals(listOf("logged during shutdown: 4 of 4"), output.lines().filter { it.isNotEmpty() }, output)
    }
}

/**
 * The JVM of [ShutdownLoggingTest]: `sika.transport` at DEBUG (one line per request) into an
 * appender of its own; three blocking calls on threads of their own, then `System.exit` while
 * they wait; a shutdown hook that joins them, calls once more and prints how many of the four
 * request lines were logged.
 */
object LogsThroughShutdownMain {
    @JvmStatic
    fun main(args: Array<String>) {
        val (url, key) = args
        // Before anything of the package loads: the sink reads the level as it is installed.
        val transport = LoggerFactory.getLogger("sika.transport") as Logger
        transport.level = Level.DEBUG
        val lines = CopyOnWriteArrayList<String>()
        val appender = object : AppenderBase<ILoggingEvent>() {
            override fun append(event: ILoggingEvent) {
                lines.add(event.formattedMessage)
            }
        }
        appender.start()
        transport.addAppender(appender)

        val client = BlockingClient(ClientConfig(SecretKey(key), url, timeoutMs = 10_000))
        val calls = (0 until 3).map { index ->
            Thread { runCatching { client.verifyTransaction("SHUT-$index") } }.apply { start() }
        }
        Runtime.getRuntime().addShutdownHook(
            Thread {
                calls.forEach(Thread::join)
                runCatching { client.verifyTransaction("SHUT-HOOK") }
                // Records reach SLF4J on the SDK's logging thread (ADR 0044), just after the
                // call: the hook's JVM is still running, so they arrive (5 s at most here).
                val until = System.nanoTime() + 5_000_000_000L
                while (lines.count { it.startsWith("GET /transaction/verify/SHUT-") } < 4 && System.nanoTime() < until) {
                    Thread.sleep(10)
                }
                val logged = lines.count { it.startsWith("GET /transaction/verify/SHUT-") }
                println("logged during shutdown: $logged of 4")
                System.out.flush()
            },
        )
        Thread.sleep(150) // the three requests are at the sandbox, answered 400 ms after they came
        System.exit(0)
    }
}
