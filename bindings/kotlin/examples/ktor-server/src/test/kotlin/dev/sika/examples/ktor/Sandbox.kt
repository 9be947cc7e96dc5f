package dev.sika.examples.ktor

import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.TimeUnit
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive

/** The canary key: it must never appear in any text the SDK or the shop produces. */
const val KEY = "sk_test_canary_ktor_5b2e80d1"

/**
 * The project's sandbox on a free loopback port,
 * as the SDK's own suite starts it (bindings/kotlin/src/test/kotlin/dev/sika/Sandbox.kt). Its
 * stdin stays an open pipe, so it also exits when the test JVM dies.
 */
class Sandbox(confirmAfterMs: Int) : AutoCloseable {
    val url: String
    private val process: Process
    private val http: HttpClient = HttpClient.newHttpClient()

    init {
        process = ProcessBuilder(
            binary, "--port", "0", "--secret-key", KEY, "--exit-on-stdin-eof", "--confirm-after-ms", "$confirmAfterMs",
        ).redirectError(ProcessBuilder.Redirect.DISCARD).start()
        val firstLine = process.inputStream.bufferedReader().readLine()
        check(firstLine != null && firstLine.startsWith("listening on http://127.0.0.1:")) {
            "the sandbox did not start: $firstLine"
        }
        url = firstLine.removePrefix("listening on ")
    }

    /** Where the sandbox delivers its webhooks from now on. */
    fun deliverWebhooksTo(webhookUrl: String) {
        control("change_settings", """{"webhook_url":${Json.encodeToString(webhookUrl)}}""")
    }

    /** Makes the sandbox deliver a notification now: for [reference], or [body] as it is. */
    fun sendWebhook(reference: String, times: Int = 1, body: String? = null): List<JsonObject> {
        val fields = buildString {
            append("""{"reference":${Json.encodeToString(reference)},"times":$times""")
            if (body != null) append(""","body":${Json.encodeToString(body)}""")
            append("}")
        }
        return control("send_webhook", fields).jsonArray.map { it.jsonObject }
    }

    /** Every delivery attempt, oldest first: `{reference, delivered, http_status, ...}`. */
    fun webhooks(): List<JsonObject> = control("webhooks").jsonArray.map { it.jsonObject }

    /**
     * Makes the next [count] API requests whose path starts with [path] misbehave as [kind] says,
     * with that kind's [options] as JSON members (sandbox/README.md, "Faults").
     */
    fun fault(path: String, kind: String, count: Int, options: String = "") {
        val extra = if (options.isEmpty()) "" else ",$options"
        control("add_fault", """{"path":${Json.encodeToString(path)},"kind":${Json.encodeToString(kind)},"count":$count$extra}""")
    }

    fun clearFaults() {
        control("clear_faults")
    }

    /** The API requests received, as `{method, path, query, authorized}` objects. */
    fun requests(): List<JsonObject> = control("requests").jsonArray.map { it.jsonObject }

    fun clearRequests() {
        control("clear_requests")
    }

    /** TCP connections open at the sandbox now, this control request's own included. */
    fun openConnections(): Int = control("connections").jsonObject.getValue("open").jsonPrimitive.int

    /**
     * Calls [operation] of the control API as tests/fixtures/sandbox_control.json lists it (the
     * list every suite reads); any status but the listed one fails with the body. Returns the
     * envelope's `data`.
     */
    private fun control(operation: String, body: String? = null): JsonElement {
        val spec = controlOperations[operation] ?: error("sandbox_control.json has no operation $operation")
        val method = spec.getValue("method").jsonPrimitive.content
        val path = spec.getValue("path").jsonPrimitive.content
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
        /** `$SIKA_SANDBOX_BIN` (set by scripts/test-kotlin), else built here, as a plain `mvn verify` needs. */
        val binary: String by lazy {
            System.getenv("SIKA_SANDBOX_BIN") ?: run {
                val root = File("../../../..").canonicalFile // Maven runs the test in examples/ktor-server
                val build = ProcessBuilder("cargo", "build", "--quiet", "-p", "sika-sandbox").directory(root).inheritIO().start()
                check(build.waitFor() == 0) { "building the sandbox failed" }
                val target = File(System.getenv("CARGO_TARGET_DIR") ?: "target").let { if (it.isAbsolute) it else File(root, it.path) }
                File(target, "debug/sika-sandbox").path
            }
        }

        /** Operation name -> `{method, path, expect}`, from the shared test data. */
        val controlOperations: Map<String, JsonObject> by lazy {
            val fixtures = System.getProperty("sika.fixtures.dir") ?: error("sika.fixtures.dir is not set (pom.xml sets it)")
            Json.parseToJsonElement(File(fixtures, "sandbox_control.json").readText())
                .jsonObject.getValue("operations").jsonObject.mapValues { it.value.jsonObject }
        }
    }
}
