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
 * The project's sandbox on a free loopback port, one per test class. Its stdin stays an open
 * pipe, so it also exits when the test JVM dies.
 */
class Sandbox : AutoCloseable {
    val url: String
    private val process: Process
    private val http: HttpClient = HttpClient.newHttpClient()

    init {
        process = ProcessBuilder(
            binary, "--port", "0", "--secret-key", KEY, "--exit-on-stdin-eof", "--confirm-after-ms", "150",
        ).redirectError(ProcessBuilder.Redirect.DISCARD).start()
        val firstLine = process.inputStream.bufferedReader().readLine()
        check(firstLine != null && firstLine.startsWith("listening on http://127.0.0.1:")) {
            "the sandbox did not start: $firstLine"
        }
        url = firstLine.removePrefix("listening on ")
    }

    fun config(key: String = KEY): ClientConfig = ClientConfig(key, url, timeoutMs = 10_000)

    fun client(key: String = KEY): Client = Client(config(key))

    fun blockingClient(key: String = KEY): BlockingClient = BlockingClient(config(key))

    /** Seeds a transaction object, stored and served byte for byte as this text. */
    fun seedTransaction(objectJson: String) {
        send("POST", "/__sandbox/transactions", objectJson, expect = 201)
    }

    fun setStatus(reference: String, status: String) {
        send("POST", "/__sandbox/transactions/${encodeSegment(reference)}/status", """{"status":"$status"}""")
    }

    /** The API requests received, as `{method, path, query, authorized}` objects. */
    fun requests(): List<JsonObject> =
        Json.parseToJsonElement(send("GET", "/__sandbox/requests")).jsonObject["data"]!!.jsonArray.map { it.jsonObject }

    fun clearRequests() {
        send("DELETE", "/__sandbox/requests")
    }

    /**
     * Makes the next API requests whose path starts with [path] misbehave as [kind] says
     * (`status`, `after_processing`, ...), with that kind's [options]: see tests/sandbox/README.md.
     */
    fun fault(path: String, kind: String, vararg options: Pair<String, Any>) {
        val fault = buildMap<String, JsonElement> {
            put("path", JsonPrimitive(path))
            put("kind", JsonPrimitive(kind))
            for ((name, value) in options) {
                put(name, if (value is Number) JsonPrimitive(value) else JsonPrimitive(value.toString()))
            }
        }
        send("POST", "/__sandbox/faults", JsonObject(fault).toString(), expect = 201)
    }

    /**
     * Adds a fault of [kind] for the next [count] requests under [path], its [options] sent as
     * they are (JSON nulls, booleans and numbers kept: the shared faults.json is written so).
     */
    fun fault(path: String, kind: String, count: Int, options: JsonObject) {
        val fault = JsonObject(
            options + mapOf("path" to JsonPrimitive(path), "kind" to JsonPrimitive(kind), "count" to JsonPrimitive(count)),
        )
        send("POST", "/__sandbox/faults", fault.toString(), expect = 201)
    }

    fun clearFaults() {
        send("DELETE", "/__sandbox/faults")
    }

    /** TCP connections open at the sandbox now, this control request's own included. */
    fun openConnections(): Int =
        Json.parseToJsonElement(send("GET", "/__sandbox/connections")).jsonObject["data"]!!.jsonObject["open"]!!.jsonPrimitive.int

    /** Forgets every transaction and request: each test starts from the seeded data only. */
    fun reset() {
        send("POST", "/__sandbox/reset")
    }

    private fun send(method: String, path: String, body: String? = null, expect: Int = 200): String {
        val publisher = body?.let { HttpRequest.BodyPublishers.ofString(it) } ?: HttpRequest.BodyPublishers.noBody()
        val request = HttpRequest.newBuilder(URI.create(url + path))
            .method(method, publisher)
            .header("content-type", "application/json")
            .build()
        val response = http.send(request, HttpResponse.BodyHandlers.ofString())
        check(response.statusCode() == expect) { "$method $path: ${response.statusCode()} ${response.body()}" }
        return response.body()
    }

    override fun close() {
        process.outputStream.close()
        process.destroy()
        if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly()
    }

    private companion object {
        /** `$SIKA_SANDBOX_BIN` (set by scripts/test-kotlin), else built here, as a plain `mvn test` needs. */
        val binary: String by lazy {
            System.getenv("SIKA_SANDBOX_BIN") ?: run {
                val root = File("../..").canonicalFile // Maven runs the tests in bindings/kotlin
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
