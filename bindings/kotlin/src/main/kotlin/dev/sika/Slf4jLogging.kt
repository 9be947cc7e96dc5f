package dev.sika

import org.slf4j.Logger
import org.slf4j.LoggerFactory
import org.slf4j.MDC
import org.slf4j.helpers.NOPLoggerFactory
import org.slf4j.spi.SLF4JServiceProvider
import java.util.ServiceLoader

/**
 * The core's logs in SLF4J (ADR 0014): each record goes to the SLF4J logger its `target` names
 * (`sika.transport` for requests and retries, `sika.client` for charges) at its level, and the
 * core follows the levels the application configures, within a second of any change.
 *
 * Records arrive on the SDK's logging thread (`sika-log`), never on a thread that makes a call
 * (ADR 0044). Each record's facts are in the MDC while it is logged (`operation`, `reference`,
 * `http_status`, `attempt`, `duration_ms`, `request_id`, `dropped`; only those it has), so a JSON encoder
 * (logstash-logback-encoder, Logback's JsonEncoder) writes them as fields of their own.
 *
 * Installed by the generated code as it loads the native library (the Kotlin patch
 * `slf4j_logging`), so nothing is to be called. Without an SLF4J provider (SLF4J's NOP) nothing
 * is installed and `SIKA_LOG` turns on the core's console on standard error, as before.
 */
internal object Slf4jLogging : LogSink {
    /** The loggers the core writes to, whose levels decide what the core builds at all. */
    private val sikaLoggers: List<Logger> by lazy {
        listOf("sika", "sika.transport", "sika.client").map(LoggerFactory::getLogger)
    }

    /** The MDC keys of a record's facts, and their values (only those it has). */
    private fun fields(record: LogRecord): List<Pair<String, String>> = listOfNotNull(
        record.operation?.let { "operation" to it },
        record.reference?.let { "reference" to it },
        record.httpStatus?.let { "http_status" to it.toString() },
        record.attempt?.let { "attempt" to it.toString() },
        record.durationMs?.let { "duration_ms" to it.toString() },
        record.requestId?.let { "request_id" to it },
        record.dropped?.let { "dropped" to it.toString() },
    )

    /** Called on the SDK's logging thread; SLF4J's loggers are thread-safe. Never throws into the core. */
    override fun log(record: LogRecord) {
        val fields = fields(record)
        try {
            for ((key, value) in fields) MDC.put(key, value)
            val logger = LoggerFactory.getLogger(record.target)
            // The message is passed as it is (no arguments), so SLF4J never reads `{}` in it.
            when (record.level) {
                LogLevel.ERROR -> logger.error(record.message)
                LogLevel.WARN -> logger.warn(record.message)
                LogLevel.INFO -> logger.info(record.message)
                LogLevel.DEBUG -> logger.debug(record.message)
                LogLevel.TRACE -> logger.trace(record.message)
            }
        } catch (_: Throwable) {
            // An appender that throws must not reach the SDK call that logged.
        } finally {
            try {
                for ((key, _) in fields) MDC.remove(key)
            } catch (_: Throwable) {
                // No MDC adapter: nothing was put.
            }
        }
    }

    /** Asked by the core at install and at most once a second: the most detailed level any `sika` logger accepts. */
    override fun level(): LogLevel? = try {
        sikaLoggers.mapNotNull(::levelOf).maxByOrNull { it.ordinal }
    } catch (_: Throwable) {
        LogLevel.TRACE // unknown: everything is delivered and the loggers filter
    }

    private fun levelOf(logger: Logger): LogLevel? = when {
        logger.isTraceEnabled -> LogLevel.TRACE
        logger.isDebugEnabled -> LogLevel.DEBUG
        logger.isInfoEnabled -> LogLevel.INFO
        logger.isWarnEnabled -> LogLevel.WARN
        logger.isErrorEnabled -> LogLevel.ERROR
        else -> null
    }

    /**
     * The `sika` logger for the Kotlin package's own records (the fulfilment blocks'), or null
     * without an SLF4J provider: asking SLF4J for a logger starts it, and its "no providers"
     * notice on standard error must not come from merely using the SDK (as in [install]).
     */
    @get:JvmSynthetic
    internal val packageLogger: Logger? by lazy {
        try {
            if (hasProvider() && LoggerFactory.getILoggerFactory() !is NOPLoggerFactory) LoggerFactory.getLogger("sika") else null
        } catch (_: Throwable) {
            null // no SLF4J on the class path
        }
    }

    /** A provider named by `slf4j.provider`, or one that `ServiceLoader` finds beside slf4j-api. */
    private fun hasProvider(): Boolean =
        System.getProperty("slf4j.provider") != null ||
            ServiceLoader.load(SLF4JServiceProvider::class.java, SLF4JServiceProvider::class.java.classLoader).iterator().hasNext()

    /**
     * Installs the sink unless SLF4J has no provider or is missing from the class path, and
     * warns there when this is not the first class loader of the JVM to load Sika. Never
     * throws: logging must not stop the library from loading. No shutdown hook closes it
     * (ADR 0036): the records of calls that end while the application shuts down (its own
     * hooks, Spring's graceful phase) reach SLF4J; once the VM is gone the core skips the sink.
     */
    @JvmStatic
    fun install() {
        val loads = ClassLoaderCount.countThisLoad()
        try {
            // Looked up as SLF4J looks, but without starting it: SLF4J's first use prints a
            // "no providers" notice on standard error, which an application without SLF4J
            // logging must not get from merely using the SDK.
            if (!hasProvider() || LoggerFactory.getILoggerFactory() is NOPLoggerFactory) return
            // A second class loader in this JVM: its copy of the library is never freed (B190).
            if (loads > 1) LoggerFactory.getLogger("sika").warn(ClassLoaderCount.warning(loads))
            if (!setLogSink(this)) return
            // SIKA_LOG: the core's console on standard error at that level, beside SLF4J.
            logLevelFromEnv()?.let(::enableLogging)
        } catch (_: Throwable) {
            // No SLF4J, or the JVM is exiting: the core's console stays (SIKA_LOG).
        }
    }
}
