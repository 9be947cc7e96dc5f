package dev.sika

import ch.qos.logback.classic.Level
import ch.qos.logback.classic.Logger
import ch.qos.logback.classic.spi.ILoggingEvent
import ch.qos.logback.classic.turbo.TurboFilter
import ch.qos.logback.core.read.ListAppender
import ch.qos.logback.core.spi.FilterReply
import java.io.File
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.async
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.slf4j.LoggerFactory
import org.slf4j.Marker

/**
 * B41 on the JVM: the core's records reach SLF4J (Logback here, test scope) through the sink
 * the package installs as it loads, at the levels Logback has at any time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LoggingTest {
    private val sandbox = Sandbox()
    private val records = ListAppender<ILoggingEvent>()
    private val sika = logger("sika")
    private val transport = logger("sika.transport")
    private val client = logger("sika.client")

    @AfterAll
    fun stopSandbox() = sandbox.close()

    @BeforeEach
    fun captureRecords() {
        sandbox.reset()
        records.start()
        sika.addAppender(records)
    }

    @AfterEach
    fun restoreLevels() {
        sika.detachAppender(records)
        records.list.clear()
        sika.level = null
        transport.level = null
        client.level = null
        tellTheCoreNow()
    }

    @Test
    fun testB41RecordsOfRealCallsReachSlf4jWithTheirLoggersAndLevels() = runBlocking<Unit> {
        sika.level = Level.TRACE
        tellTheCoreNow()
        sandbox.seedTransaction(transactionObject("LOG-KT-1", "successful", "5"))
        sandbox.fault("/transaction/verify", "status", 1, JsonObject(mapOf("status" to JsonPrimitive(503))))
        sandbox.blockingClient().use { it.verifyTransaction("LOG-KT-1") }
        sandbox.client().use { async ->
            async.verifyTransaction("LOG-KT-1") // on the SDK's runtime thread
            async.initiateCharge(charge("LOG-KT-CHARGE", phone = "+233244129876"))
        }

        flushLogRecords(10_000L) // records reach SLF4J on the SDK's logging thread (ADR 0044)
        val events = records.list.toList()
        val warnings = events.filter { it.level == Level.WARN }
        assertEquals(1, warnings.size, "$events")
        assertEquals("sika.transport", warnings[0].loggerName)
        assertTrue(warnings[0].formattedMessage.startsWith("GET /transaction/verify/LOG-KT-1 failed (HTTP 503); retry 1 in "), "$events")
        val debug = events.filter { it.level == Level.DEBUG && it.loggerName == "sika.transport" }.map { it.formattedMessage }
        assertEquals(2, debug.count { it.startsWith("GET /transaction/verify/LOG-KT-1 -> HTTP 200 in ") }, "$events")
        assertTrue(debug.any { it.startsWith("POST /charge -> HTTP 200 in ") }, "$events")
        val info = events.filter { it.level == Level.INFO }
        assertEquals(listOf("sika.client"), info.map { it.loggerName })
        assertEquals("charge LOG-KT-CHARGE: 20 GHS to +233*******76 via MTN", info[0].formattedMessage)

        for (event in events) {
            for (secret in listOf(KEY, "+233244129876", "233244129876", "244129876")) {
                assertTrue(secret !in event.formattedMessage, "$secret in $event")
            }
        }
    }

    @Test
    fun testB41RaisingSikaTransportToDebugAtRuntimeIsFollowedWithinASecond() {
        sika.level = Level.WARN
        sandbox.seedTransaction(transactionObject("LOG-KT-2", "successful", "5"))
        sandbox.blockingClient().use { blocking ->
            waitForTheCoreToAsk()
            blocking.verifyTransaction("LOG-KT-2")
            flushLogRecords(10_000L)
            assertEquals(emptyList<ILoggingEvent>(), records.list.toList(), "nothing below WARN")

            transport.level = Level.DEBUG // as a merchant's runtime change (JMX, Spring's /loggers) does
            waitForTheCoreToAsk()
            blocking.verifyTransaction("LOG-KT-2")
            flushLogRecords(10_000L)
            assertEquals(listOf("sika.transport" to Level.DEBUG), records.list.map { it.loggerName to it.level })

            transport.level = null
            waitForTheCoreToAsk()
            records.list.clear()
            blocking.verifyTransaction("LOG-KT-2")
            flushLogRecords(10_000L)
            assertEquals(emptyList<ILoggingEvent>(), records.list.toList(), "back to WARN")
        }
    }

    @Test
    fun testB41WithEverythingAtWarnNoDebugRecordReachesTheJvm() {
        // A TurboFilter sees every record handed to Logback before any level is checked.
        val handedOver = AtomicInteger()
        val counter = object : TurboFilter() {
            override fun decide(marker: Marker?, logger: Logger, level: Level, format: String?, params: Array<out Any>?, t: Throwable?): FilterReply {
                if (format != null && level == Level.DEBUG && logger.name.startsWith("sika")) handedOver.incrementAndGet()
                return FilterReply.NEUTRAL
            }
        }
        counter.start()
        val context = sika.loggerContext
        context.addTurboFilter(counter)
        try {
            sika.level = Level.WARN
            tellTheCoreNow()
            sandbox.seedTransaction(transactionObject("LOG-KT-3", "successful", "5"))
            sandbox.blockingClient().use { blocking ->
                repeat(20) { blocking.verifyTransaction("LOG-KT-3") }
                flushLogRecords(10_000L)
                assertEquals(0, handedOver.get(), "DEBUG records crossed the FFI while every sika logger was at WARN")

                // The same calls with a DEBUG logger: counted, so the count above can fail.
                client.level = Level.DEBUG
                tellTheCoreNow()
                repeat(3) { blocking.verifyTransaction("LOG-KT-3") }
                flushLogRecords(10_000L)
                assertEquals(3, handedOver.get())
                assertTrue(records.list.none { it.level == Level.DEBUG }, "sika.transport itself still drops them")
            }
        } finally {
            context.turboFilterList.remove(counter)
        }
    }

    @Test
    fun testB41CallsLoggingAsTheJvmExitsNeverCrashIt() {
        sandbox.seedTransaction(transactionObject("LOG-KT-EXIT", "successful", "5"))
        val java = File(System.getProperty("java.home"), "bin/java").path
        repeat(3) { round ->
            val process = ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), LoggingExitMain::class.java.name, sandbox.url, KEY)
                .redirectErrorStream(true)
                .start()
            val finished = process.waitFor(60, TimeUnit.SECONDS)
            val output = process.inputStream.bufferedReader().readText()
            assertTrue(finished, "round $round: the JVM did not exit: $output")
            assertEquals(0, process.exitValue(), "round $round: $output")
            val delivered = Regex("delivered (\\d+)").find(output)?.groupValues?.get(1)?.toInt() ?: 0
            assertTrue(delivered > 0, "round $round: no record was delivered before the exit: $output")
            assertTrue("fatal" !in output.lowercase() && "hs_err" !in output, "round $round: $output")
        }
    }

    @Test
    fun testB41WithoutAnSlf4jProviderNothingIsInstalledAndSikaLogPrintsOnStandardError() {
        sandbox.seedTransaction(transactionObject("LOG-KT-NOP", "successful", "5"))
        // The test class path less Logback: slf4j-api alone, SLF4J's NOP.
        val classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))
            .split(File.pathSeparator).filterNot { "logback" in it }.joinToString(File.pathSeparator)
        val java = File(System.getProperty("java.home"), "bin/java").path
        val builder = ProcessBuilder(java, "-cp", classPath, LoggingNopMain::class.java.name, sandbox.url, KEY).redirectErrorStream(true)
        builder.environment()["SIKA_LOG"] = "debug"
        val process = builder.start()
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the JVM did not exit")
        val output = process.inputStream.bufferedReader().readText()
        assertEquals(0, process.exitValue(), output)
        assertTrue("no sink was installed: true" in output, output)
        assertTrue("SLF4J" !in output, "SLF4J was started without a provider: $output")
        assertTrue(Regex("DEBUG sika.transport] GET /transaction/verify/LOG-KT-NOP -> HTTP 200 in ").containsMatchIn(output), output)
        assertTrue(KEY !in output, output)
    }

    /** B85: a record's facts are in the MDC as SLF4J logs it; B82: a slow appender delays no call. */
    @Test
    fun testB85RecordsCarryTheirFactsInTheMdc() {
        // As an encoder does, the MDC and thread are read while the record is appended (Logback
        // reads both lazily: a ListAppender read later would see the test thread's).
        val appended = object : ListAppender<ILoggingEvent>() {
            override fun append(event: ILoggingEvent) {
                event.prepareForDeferredProcessing()
                super.append(event)
            }
        }
        appended.start()
        sika.addAppender(appended)
        transport.level = Level.DEBUG
        tellTheCoreNow()
        sandbox.seedTransaction(transactionObject("LOG-KT-B85", "successful", "5"))
        sandbox.blockingClient().use { it.verifyTransaction("LOG-KT-B85") }
        flushLogRecords(10_000L)
        sika.detachAppender(appended)
        val line = appended.list.single { it.formattedMessage.startsWith("GET /transaction/verify/LOG-KT-B85 ") }
        val mdc = line.mdcPropertyMap
        assertEquals(listOf("verify_transaction", "LOG-KT-B85", "200", "1"), listOf("operation", "reference", "http_status", "attempt").map { mdc[it] }, "$mdc")
        assertTrue(line.formattedMessage.endsWith(" in ${mdc["duration_ms"]} ms"), "$mdc ${line.formattedMessage}")
        assertEquals(null, mdc["dropped"])
        // B207: the request id the sandbox received, in the MDC.
        assertEquals(sandbox.requests().last()["request_id"]!!.jsonPrimitive.content, mdc["request_id"], "$mdc")
        // The blocking call ran on this thread; its record came on the SDK's logging thread.
        assertNotEquals(Thread.currentThread().name, line.threadName, "delivered on the calling thread")
    }

    /**
     * B196: records reach SLF4J on one thread, attached to the JVM once and named `sika-log` (a
     * log pattern's `%thread`), not on a new `Thread-N` that JNA attaches for each record and
     * detaches again (ADR 0068).
     */
    @Test
    fun testB196RecordsArriveOnOneAttachedThreadNamedSikaLog() {
        val threads = java.util.Collections.synchronizedList(mutableListOf<Thread>())
        val threadOfEach = object : ch.qos.logback.core.AppenderBase<ILoggingEvent>() {
            override fun append(event: ILoggingEvent) {
                threads.add(Thread.currentThread())
            }
        }
        withAppender(threadOfEach) {
            transport.level = Level.DEBUG
            tellTheCoreNow()
            sandbox.seedTransaction(transactionObject("LOG-KT-B196", "successful", "5"))
            sandbox.blockingClient().use { client ->
                repeat(30) {
                    client.verifyTransaction("LOG-KT-B196")
                    // One record at a time reaches the logging thread, so each is its own callback.
                    flushLogRecords(10_000L)
                }
            }
        }
        assertTrue(threads.size >= 30, "${threads.size} records")
        val distinct = threads.toSet()
        assertEquals(listOf(JvmHost.LOGGING_THREAD_NAME), distinct.map { it.name }.distinct(), "thread names: ${distinct.map { it.name }}")
        assertEquals(1, distinct.size, "${distinct.size} Thread objects for ${threads.size} records: attached again for each")
        assertTrue(distinct.single().isDaemon, "the logging thread would hold the VM's exit")
    }

    @Test
    fun testB82ASlowAppenderNeverMakesACallExceedItsDeadline() = runBlocking<Unit> {
        val setup = scenario("slow_log_handler")
        val delayMs = setup["handler_delay_ms"]!!.jsonPrimitive.long
        val deadlineMs = setup["deadline_ms"]!!.jsonPrimitive.long
        val slackMs = setup["slack_ms"]!!.jsonPrimitive.long
        val calls = setup["calls"]!!.jsonPrimitive.int
        val slow = object : ch.qos.logback.core.AppenderBase<ILoggingEvent>() {
            override fun append(event: ILoggingEvent) = Thread.sleep(delayMs)
        }
        withAppender(slow) {
            sika.level = Level.DEBUG
            tellTheCoreNow()
            sandbox.seedTransaction(transactionObject("LOG-KT-B82", "successful", "5"))
            Client(ClientConfig(SecretKey(KEY), sandbox.url, timeoutMs = deadlineMs, maxRetries = 0)).use { client ->
                val durations = (0 until calls).map {
                    async {
                        val started = System.nanoTime()
                        client.verifyTransaction("LOG-KT-B82")
                        (System.nanoTime() - started) / 1_000_000
                    }
                }.map { it.await() }
                val late = durations.filter { it > deadlineMs + slackMs }
                assertEquals(emptyList<Long>(), late, "calls that ended after their deadline, of $calls")
            }
        }
        flushLogRecords(10_000L)
    }

    private fun logger(name: String) = LoggerFactory.getLogger(name) as Logger

    /** Runs [body] with [appender] started on the `sika` logger, and takes it off after. */
    private inline fun <T> withAppender(appender: ch.qos.logback.core.Appender<ILoggingEvent>, body: () -> T): T {
        appender.start()
        sika.addAppender(appender)
        try {
            return body()
        } finally {
            sika.detachAppender(appender)
        }
    }

    /** Tells the core Logback's levels at once, as a test that is not about following them may. */
    private fun tellTheCoreNow() = setLogSinkLevel(Slf4jLogging.level())

    /** The core asks the sink at most once a second, on the SDK's next call: wait past that. */
    private fun waitForTheCoreToAsk() = Thread.sleep(1_100)
}

/**
 * The JVM of [LoggingTest.testB41CallsLoggingAsTheJvmExitsNeverCrashIt]: async calls logging at
 * DEBUG on the SDK's runtime threads while `main` exits the JVM under them.
 */
object LoggingExitMain {
    @JvmStatic
    fun main(args: Array<String>) {
        val (url, key) = args
        val sika = LoggerFactory.getLogger("sika") as Logger
        val delivered = ListAppender<ILoggingEvent>().apply { start() }
        sika.addAppender(delivered)
        sika.level = Level.TRACE
        setLogSinkLevel(Slf4jLogging.level())
        val client = Client(ClientConfig(SecretKey(key), url, timeoutMs = 10_000))
        repeat(8) {
            Thread {
                runBlocking { while (true) client.verifyTransaction("LOG-KT-EXIT") }
            }.apply { isDaemon = true }.start()
        }
        while (delivered.list.size < 20) Thread.sleep(5)
        println("delivered ${delivered.list.size}")
        System.out.flush()
        System.exit(0)
    }
}

/**
 * The JVM of [LoggingTest.testB41WithoutAnSlf4jProviderNothingIsInstalledAndSikaLogPrintsOnStandardError]:
 * SLF4J without a provider, `SIKA_LOG=debug`.
 */
object LoggingNopMain {
    @JvmStatic
    fun main(args: Array<String>) {
        val (url, key) = args
        BlockingClient(ClientConfig(SecretKey(key), url, timeoutMs = 10_000)).use { it.verifyTransaction("LOG-KT-NOP") }
        val probe = object : LogSink {
            override fun log(record: LogRecord) {}
            override fun level(): LogLevel? = null
        }
        // True only if the package installed no sink of its own as it loaded.
        println("no sink was installed: ${setLogSink(probe)}")
    }
}
