package dev.sika.otel

import dev.sika.AttemptSpan
import dev.sika.CallEnd
import dev.sika.CallStart
import dev.sika.TracedCall
import dev.sika.setTracer
import io.opentelemetry.api.GlobalOpenTelemetry
import io.opentelemetry.api.OpenTelemetry
import io.opentelemetry.api.common.AttributeKey
import io.opentelemetry.api.common.Attributes
import io.opentelemetry.api.common.AttributesBuilder
import io.opentelemetry.api.metrics.DoubleHistogram
import io.opentelemetry.api.metrics.LongCounter
import io.opentelemetry.api.trace.Span
import io.opentelemetry.api.trace.SpanKind
import io.opentelemetry.api.trace.StatusCode
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator
import io.opentelemetry.context.Context
import io.opentelemetry.context.propagation.TextMapSetter
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicLong
import io.opentelemetry.api.trace.Tracer as OtelTracer

/**
 * Sika's calls in OpenTelemetry (issue 30, ADR 0058), for an application that has
 * `io.opentelemetry:opentelemetry-api` (an optional dependency of Sika: without it nothing of
 * this class is loaded, and Sika works as before).
 *
 * After [install], each client call (blocking or suspend) is a span `sika.<method>` (kind
 * INTERNAL; `sika.operation`, `sika.reference`; on failure `error.type` and `sika.request_id`,
 * status ERROR), a child of the context current where the call is made (`Context.current()`:
 * a server request's span; in a coroutine, the context its `asContextElement()` carries). Its
 * requests carry that span's W3C context (`traceparent`, `tracestate`) to the service. Each HTTP
 * attempt is a CLIENT child span `GET /transaction/verify/{reference}`, with its own start and
 * end times and OpenTelemetry's stable HTTP client attributes (`http.request.method`,
 * `server.address`, `server.port`, `url.template`, `http.response.status_code`,
 * `http.request.resend_count` on retries, `error.type`) and `sika.request_id`. Metrics: each
 * attempt's duration in the histogram `http.client.request.duration` (seconds), each retry in
 * the counter `sika.client.retries`, each payment decision a call returned (`confirmed`,
 * `not_paid`, `fulfil`, `retry_later`, ...: `sika.decision`, also on the call's span) in the
 * counter `sika.decisions`. No key, phone number or e-mail is ever an attribute.
 *
 * The ledger's operations are spans the same way (ADR 0085): `sika.ledger.handle_webhook`,
 * `sika.ledger.settle`, `sika.ledger.renew`, `sika.ledger.mark_fulfilled`, `sika.ledger.release`,
 * `sika.ledger.reconcile`, ..., children of the current context, with the verifications they send
 * as their attempt spans (carrying their context). Counters: `sika.ledger.claims.offered`,
 * `sika.ledger.claims.reoffered` (an offer above 1), `sika.ledger.claims.released` and
 * `sika.ledger.fulfilments` (claims marked fulfilled), each by `sika.operation`.
 *
 * With no OpenTelemetry SDK configured (or a context that is not valid) a call is not traced
 * and nothing is sent.
 */
object SikaOpenTelemetry {
    /**
     * Traces Sika's calls through [openTelemetry] for the rest of the process. Returns false when
     * a tracer was already installed (this one's or another): the first one stays.
     */
    @JvmStatic
    fun install(openTelemetry: OpenTelemetry): Boolean = setTracer(OpenTelemetryTracer { openTelemetry })

    /**
     * Traces Sika's calls through `GlobalOpenTelemetry`, read at the first call (so an agent's
     * or an SDK registered after this install is the one used). Returns false when a tracer was
     * already installed: the first one stays.
     */
    @JvmStatic
    fun install(): Boolean = setTracer(OpenTelemetryTracer { GlobalOpenTelemetry.get() })
}

/**
 * The core's [dev.sika.Tracer] through an application's OpenTelemetry. Both methods run on the
 * application's thread (where a call starts, and where its result is taken) and never throw.
 * Kotlin-internal (its tests construct it), so visible to Java as `ParkingKt` is (java-api.txt).
 */
internal class OpenTelemetryTracer(openTelemetry: () -> OpenTelemetry) : dev.sika.Tracer {
    private class Instruments(
        val tracer: OtelTracer,
        val duration: DoubleHistogram,
        val retries: LongCounter,
        val decisions: LongCounter,
        val claimsOffered: LongCounter,
        val claimsReoffered: LongCounter,
        val claimsReleased: LongCounter,
        val fulfilments: LongCounter,
    )

    private class OpenCall(val span: Span, val call: CallStart)

    private val instruments: Instruments by lazy {
        val otel = openTelemetry()
        val meter = otel.getMeter(SCOPE)
        Instruments(
            otel.getTracer(SCOPE),
            meter.histogramBuilder("http.client.request.duration")
                .setUnit("s")
                .setDescription("Duration of HTTP client requests.")
                .setExplicitBucketBoundariesAdvice(DURATION_BUCKETS)
                .build(),
            meter.counterBuilder("sika.client.retries")
                .setUnit("{retry}")
                .setDescription("HTTP requests the SDK sent again (http.request.resend_count > 0).")
                .build(),
            meter.counterBuilder("sika.decisions")
                .setUnit("{decision}")
                .setDescription("Sika's payment decisions, by kind.")
                .build(),
            meter.counterBuilder("sika.ledger.claims.offered")
                .setUnit("{claim}")
                .setDescription("Claims the ledger gave to fulfil an order.")
                .build(),
            meter.counterBuilder("sika.ledger.claims.reoffered")
                .setUnit("{claim}")
                .setDescription("Claims given again after the previous one lapsed or was released.")
                .build(),
            meter.counterBuilder("sika.ledger.claims.released")
                .setUnit("{claim}")
                .setDescription("Claims given back (release).")
                .build(),
            meter.counterBuilder("sika.ledger.fulfilments")
                .setUnit("{claim}")
                .setDescription("Claims marked fulfilled.")
                .build(),
        )
    }

    private val open = ConcurrentHashMap<Long, OpenCall>()
    private val nextId = AtomicLong()

    override fun callStarted(call: CallStart): TracedCall? = try {
        val builder = instruments.tracer.spanBuilder("sika.${call.operation}")
            .setParent(Context.current())
            .setSpanKind(SpanKind.INTERNAL)
            .setAttribute(SIKA_OPERATION, call.operation)
        call.reference?.let { builder.setAttribute(SIKA_REFERENCE, it) }
        val span = builder.startSpan()
        if (!span.spanContext.isValid) {
            span.end()
            null
        } else {
            val headers = HashMap<String, String>(2)
            W3CTraceContextPropagator.getInstance().inject(Context.root().with(span), headers, HeaderSetter)
            val traceparent = headers["traceparent"]
            if (traceparent == null) {
                span.end()
                null
            } else {
                val id = nextId.incrementAndGet()
                open[id] = OpenCall(span, call)
                TracedCall(id, traceparent, headers["tracestate"]?.takeIf { it.isNotEmpty() })
            }
        }
    } catch (ignored: Throwable) {
        // A tracer must never fail a payment call: the call goes on untraced.
        null
    }

    override fun callEnded(end: CallEnd) {
        val opened = open.remove(end.id) ?: return
        try {
            recordAttempts(opened, end.attempts)
            countLedger(opened.call.operation, end)
            end.decision?.let { decision ->
                opened.span.setAttribute(SIKA_DECISION, decision)
                instruments.decisions.add(
                    1,
                    Attributes.of(SIKA_OPERATION, opened.call.operation, SIKA_DECISION, decision),
                )
            }
            end.errorType?.let { errorType ->
                opened.span.setAttribute(ERROR_TYPE, errorType)
                end.requestId?.let { opened.span.setAttribute(SIKA_REQUEST_ID, it) }
                opened.span.setStatus(StatusCode.ERROR)
            }
        } catch (ignored: Throwable) {
            // Never into the core; the span is still ended below.
        } finally {
            try {
                opened.span.end()
            } catch (ignored: Throwable) {
            }
        }
    }

    /** The ledger's counters for a call's end: its claims offered (and again), a release, a fulfilment. */
    private fun countLedger(operation: String, end: CallEnd) {
        val instruments = instruments
        val attributes = Attributes.of(SIKA_OPERATION, operation)
        if (end.offers.isNotEmpty()) {
            instruments.claimsOffered.add(end.offers.size.toLong(), attributes)
            val again = end.offers.count { it > 1 }
            if (again > 0) instruments.claimsReoffered.add(again.toLong(), attributes)
        }
        if (end.errorType != null) return
        when (operation) {
            "ledger.release" -> instruments.claimsReleased.add(1, attributes)
            "ledger.mark_fulfilled" -> instruments.fulfilments.add(1, attributes)
        }
    }

    private fun recordAttempts(opened: OpenCall, attempts: List<AttemptSpan>) {
        val instruments = instruments
        val parent = Context.root().with(opened.span)
        for (attempt in attempts) {
            val metric = Attributes.builder().httpClient(opened.call, attempt).build()
            instruments.duration.record((attempt.endedAtUnixNanos - attempt.startedAtUnixNanos) / 1e9, metric)
            if (attempt.resendCount > 0) {
                instruments.retries.add(1, metric.toBuilder().remove(HTTP_RESPONSE_STATUS_CODE).remove(ERROR_TYPE).build())
            }
            if (!opened.span.isRecording) continue
            val attributes = metric.toBuilder().apply {
                if (attempt.resendCount > 0) put(HTTP_REQUEST_RESEND_COUNT, attempt.resendCount.toLong())
                put(SIKA_REQUEST_ID, attempt.requestId)
            }.build()
            val span = instruments.tracer.spanBuilder("${attempt.method} ${attempt.urlTemplate}")
                .setParent(parent)
                .setSpanKind(SpanKind.CLIENT)
                .setAllAttributes(attributes)
                .setStartTimestamp(attempt.startedAtUnixNanos, TimeUnit.NANOSECONDS)
                .startSpan()
            if (attempt.errorType != null) span.setStatus(StatusCode.ERROR)
            span.end(attempt.endedAtUnixNanos, TimeUnit.NANOSECONDS)
        }
    }

    /** The stable HTTP client attributes of an attempt that its duration is recorded with. */
    private fun AttributesBuilder.httpClient(call: CallStart, attempt: AttemptSpan): AttributesBuilder = apply {
        put(HTTP_REQUEST_METHOD, attempt.method)
        put(SERVER_ADDRESS, call.serverAddress)
        put(SERVER_PORT, call.serverPort.toLong())
        put(URL_TEMPLATE, attempt.urlTemplate)
        attempt.statusCode?.let { put(HTTP_RESPONSE_STATUS_CODE, it.toLong()) }
        attempt.errorType?.let { put(ERROR_TYPE, it) }
    }

    private object HeaderSetter : TextMapSetter<MutableMap<String, String>> {
        override fun set(carrier: MutableMap<String, String>?, key: String, value: String) {
            carrier?.put(key, value)
        }
    }

    private companion object {
        val SCOPE: String = "sika"

        /** OpenTelemetry's advice for `http.client.request.duration`, in seconds. */
        val DURATION_BUCKETS: List<Double> = listOf(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0)

        val SIKA_OPERATION: AttributeKey<String> = AttributeKey.stringKey("sika.operation")
        val SIKA_REFERENCE: AttributeKey<String> = AttributeKey.stringKey("sika.reference")
        val SIKA_REQUEST_ID: AttributeKey<String> = AttributeKey.stringKey("sika.request_id")
        val SIKA_DECISION: AttributeKey<String> = AttributeKey.stringKey("sika.decision")
        val ERROR_TYPE: AttributeKey<String> = AttributeKey.stringKey("error.type")
        val HTTP_REQUEST_METHOD: AttributeKey<String> = AttributeKey.stringKey("http.request.method")
        val HTTP_RESPONSE_STATUS_CODE: AttributeKey<Long> = AttributeKey.longKey("http.response.status_code")
        val HTTP_REQUEST_RESEND_COUNT: AttributeKey<Long> = AttributeKey.longKey("http.request.resend_count")
        val SERVER_ADDRESS: AttributeKey<String> = AttributeKey.stringKey("server.address")
        val SERVER_PORT: AttributeKey<Long> = AttributeKey.longKey("server.port")
        val URL_TEMPLATE: AttributeKey<String> = AttributeKey.stringKey("url.template")
    }
}
