package dev.sika

import java.io.File
import java.net.URI
import java.net.URLEncoder
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.charset.StandardCharsets
import java.util.concurrent.TimeUnit
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive

/** The canary key: it must never appear in any text the SDK produces. */
const val KEY = "sk_test_canary_kt_7f3a91c4"

/**
 * The project's sandbox on a free loopback port, one per test class, completing a mobile money
 * charge [confirmAfterMs] after it is made. Its stdin stays an open pipe, so it also exits when
 * the test JVM dies. Also the examples' tests' sandbox (the test jar, `dev.sika:sika:tests`).
 */
class Sandbox(confirmAfterMs: Int = 150) : AutoCloseable {
    val url: String
    private val process: Process
    private val http: HttpClient = HttpClient.newHttpClient()

    init {
        // The key goes through the environment, not the command line (B62).
        process = ProcessBuilder(
            binary, "--port", "0", "--exit-on-stdin-eof", "--confirm-after-ms", "$confirmAfterMs",
        ).redirectError(ProcessBuilder.Redirect.DISCARD)
            .apply { environment()["SIKA_SANDBOX_SECRET_KEY"] = KEY }
            .start()
        val firstLine = process.inputStream.bufferedReader().readLine()
        check(firstLine != null && firstLine.startsWith("listening on http://127.0.0.1:")) {
            "the sandbox did not start: $firstLine"
        }
        url = firstLine.removePrefix("listening on ")
    }

    fun config(key: String = KEY): ClientConfig = ClientConfig(SecretKey(key), url, timeoutMs = 10_000)

    fun client(key: String = KEY): Client = Client(config(key))

    fun blockingClient(key: String = KEY): BlockingClient = BlockingClient(config(key))

    /** Seeds a transaction object, stored and served byte for byte as this text. */
    fun seedTransaction(objectJson: String) {
        control("seed_transaction", body = objectJson)
    }

    fun setStatus(reference: String, status: String) {
        control("set_status", reference, JsonObject(mapOf("status" to JsonPrimitive(status))).toString())
    }

    /** Where the sandbox delivers its webhooks from now on. */
    fun deliverWebhooksTo(webhookUrl: String) {
        control("change_settings", body = JsonObject(mapOf("webhook_url" to JsonPrimitive(webhookUrl))).toString())
    }

    /** Makes the sandbox deliver a notification now, [times] times: for [reference], or [body] as it is. */
    fun sendWebhook(reference: String, times: Int = 1, body: String? = null): List<JsonObject> {
        val fields = buildMap<String, JsonElement> {
            put("reference", JsonPrimitive(reference))
            put("times", JsonPrimitive(times))
            if (body != null) put("body", JsonPrimitive(body))
        }
        return control("send_webhook", body = JsonObject(fields).toString()).jsonArray.map { it.jsonObject }
    }

    /** Every webhook delivery attempt, oldest first: `{reference, delivered, http_status, ...}`. */
    fun webhooks(): List<JsonObject> = control("webhooks").jsonArray.map { it.jsonObject }

    /** The API requests received, as `{method, path, query, authorized}` objects. */
    fun requests(): List<JsonObject> = control("requests").jsonArray.map { it.jsonObject }

    fun clearRequests() {
        control("clear_requests")
    }

    /**
     * Makes the next API requests whose path starts with [path] misbehave as [kind] says
     * (`status`, `after_processing`, ...), with that kind's [options]: see sandbox/README.md.
     */
    fun fault(path: String, kind: String, vararg options: Pair<String, Any>) {
        val fault = buildMap<String, JsonElement> {
            put("path", JsonPrimitive(path))
            put("kind", JsonPrimitive(kind))
            for ((name, value) in options) {
                put(name, if (value is Number) JsonPrimitive(value) else JsonPrimitive(value.toString()))
            }
        }
        control("add_fault", body = JsonObject(fault).toString())
    }

    /**
     * Adds a fault of [kind] for the next [count] requests under [path], its [options] sent as
     * they are (JSON nulls, booleans and numbers kept: the shared faults.json is written so).
     */
    fun fault(path: String, kind: String, count: Int, options: JsonObject) {
        val fault = JsonObject(
            options + mapOf("path" to JsonPrimitive(path), "kind" to JsonPrimitive(kind), "count" to JsonPrimitive(count)),
        )
        control("add_fault", body = fault.toString())
    }

    /** Adds a fault given as the control API's `add_fault` object (a scenario row's `faults`). */
    fun addFault(fault: JsonObject) {
        control("add_fault", body = fault.toString())
    }

    fun clearFaults() {
        control("clear_faults")
    }

    /** TCP connections open at the sandbox now, this control request's own included. */
    fun openConnections(): Int = control("connections").jsonObject["open"]!!.jsonPrimitive.int

    /** Forgets every transaction and request: each test starts from the seeded data only. */
    fun reset() {
        control("reset")
    }

    /**
     * Calls [operation] of the control API as tests/fixtures/sandbox_control.json lists it (the
     * same list every suite reads): its method and path, [reference] as one percent-encoded
     * path segment, [body] as JSON text. Any status but the listed one fails with the body;
     * returns the envelope's `data`.
     */
    private fun control(operation: String, reference: String? = null, body: String? = null): JsonElement {
        val spec = controlOperations[operation] ?: error("sandbox_control.json has no operation $operation")
        val template = spec.getValue("path").jsonPrimitive.content
        val path = if (reference == null) template else template.replace("{reference}", encodeSegment(reference))
        val method = spec.getValue("method").jsonPrimitive.content
        val publisher = body?.let { HttpRequest.BodyPublishers.ofString(it) } ?: HttpRequest.BodyPublishers.noBody()
        val request = HttpRequest.newBuilder(URI.create(url + path))
            .method(method, publisher)
            .header("content-type", "application/json")
            .build()
        val response = http.send(request, HttpResponse.BodyHandlers.ofString())
        check(response.statusCode() == spec.getValue("expect").jsonPrimitive.int) {
            "$operation: $method $path answered ${response.statusCode()} ${response.body()}"
        }
        return Json.parseToJsonElement(response.body()).jsonObject.getValue("data")
    }

    override fun close() {
        process.outputStream.close()
        process.destroy()
        if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly()
    }

    private companion object {
        /** Operation name -> `{method, path, expect}`, from the shared test data. */
        val controlOperations: Map<String, JsonObject> =
            Json.parseToJsonElement(File(FIXTURES, "sandbox_control.json").readText())
                .jsonObject.getValue("operations").jsonObject.mapValues { it.value.jsonObject }

        /** `$SIKA_SANDBOX_BIN` (set by scripts/test-kotlin), else built here, as a plain `mvn test` needs. */
        val binary: String by lazy {
            System.getenv("SIKA_SANDBOX_BIN") ?: run {
                val root = FIXTURES.canonicalFile.parentFile.parentFile // the repository: tests/fixtures/../..
                val build = ProcessBuilder("cargo", "build", "--quiet", "-p", "sika-sandbox")
                    .directory(root).inheritIO().start()
                check(build.waitFor() == 0) { "building the sandbox failed" }
                val target = File(System.getenv("CARGO_TARGET_DIR") ?: "target").let { if (it.isAbsolute) it else File(root, it.path) }
                File(target, "debug/sika-sandbox").path
            }
        }
    }

    private fun encodeSegment(text: String) = URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20")
}
