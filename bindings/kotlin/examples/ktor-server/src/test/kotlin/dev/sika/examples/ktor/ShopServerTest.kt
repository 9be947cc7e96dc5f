package dev.sika.examples.ktor

import dev.sika.Client
import dev.sika.ClientConfig
import dev.sika.Ledger
import dev.sika.SecretKey
import dev.sika.testing.SikaSandbox
import dev.sika.testing.SikaSandboxExtension
import io.ktor.server.engine.EmbeddedServer
import io.ktor.server.engine.embeddedServer
import io.ktor.server.cio.CIO
import io.ktor.server.cio.CIOApplicationEngine
import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertAll
import org.junit.jupiter.api.extension.ExtendWith

// The sandbox answers by the phone's last four digits: 0000 pays, 3333 never answers.
private const val PHONE_PAYS = "+233244120000"
private const val PHONE_NEVER_ANSWERS = "+233244123333"
private const val CONCURRENT_ORDERS = 16
// Well above the sandbox's delays and the shop's 5 s SDK timeout: a wait this long is a hang.
private val DEADLINE: Duration = Duration.ofSeconds(20)

/**
 * B39: the Ktor shop (src/main/kotlin) as a merchant deploys it, driven over HTTP as its
 * customers and the service's webhooks reach it: the sandbox from `dev.sika:sika-testing`'s
 * JUnit 5 extension (one for the run, reset before each test, as a merchant's suite takes it),
 * a shop server per test on a free loopback port, stopped at its end.
 */
@ExtendWith(SikaSandboxExtension::class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShopServerTest(private val sandbox: SikaSandbox) {
    private val http: HttpClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()
    private val key = sandbox.secretKey()

    /**
     * The control operations the kit's handle does not offer (a raw notification body, clearing
     * faults, counting connections), sent as tests/fixtures/sandbox_control.json describes them.
     */
    private fun control(operation: String, body: String? = null): JsonElement {
        val spec = controlOperations.getValue(operation)
        val method = spec.getValue("method").jsonPrimitive.content
        val request = HttpRequest.newBuilder(URI.create(sandbox.baseUrl() + spec.getValue("path").jsonPrimitive.content))
            .method(method, body?.let { HttpRequest.BodyPublishers.ofString(it) } ?: HttpRequest.BodyPublishers.noBody())
            .header("content-type", "application/json").timeout(DEADLINE).build()
        val response = http.send(request, HttpResponse.BodyHandlers.ofString())
        assertEquals(spec.getValue("expect").jsonPrimitive.int, response.statusCode(), "$operation: ${response.body()}")
        return Json.parseToJsonElement(response.body()).jsonObject.getValue("data")
    }

    /** The sandbox delivers [body] as it is, as the notification of [reference]. */
    private fun sendRawWebhook(reference: String, body: String): List<Map<String, Any?>> =
        control("send_webhook", JsonObject(mapOf("reference" to JsonPrimitive(reference), "body" to JsonPrimitive(body))).toString())
            .jsonArray.map { delivery -> mapOf("http_status" to delivery.jsonObject["http_status"]?.jsonPrimitive?.int) }

    private fun clearFaults() {
        control("clear_faults")
    }

    /** TCP connections open at the sandbox now (this request's own and the kit's included). */
    private fun openConnections(): Int = control("connections").jsonObject.getValue("open").jsonPrimitive.int

    private fun Map<String, Any?>.httpStatus(): Int? = (this["http_status"] as? Number)?.toInt()

    /**
     * The shop on a free port, with the sandbox delivering its webhooks to it, and its ledger in
     * a SQLite file of its own (B182's test runs it on PostgreSQL).
     */
    private inner class RunningShop : AutoCloseable {
        private val dir = Files.createTempDirectory("sika-ktor-shop").toFile()
        val server: EmbeddedServer<CIOApplicationEngine, CIOApplicationEngine.Configuration> =
            embeddedServer(CIO, port = 0, host = "127.0.0.1") {
                shop(Client(ClientConfig(SecretKey(key), sandbox.baseUrl(), timeoutMs = 5_000)), Ledger.sqlite(File(dir, "ledger.db").path))
            }.start(wait = false)
        val url = "http://127.0.0.1:${runBlocking { server.engine.resolvedConnectors().first().port }}"

        init {
            sandbox.setWebhookUrl("$url/webhooks/sika")
        }

        override fun close() {
            server.stop(100, 5_000)
            dir.deleteRecursively()
        }
    }

    private fun withShop(test: RunningShop.() -> Unit) = RunningShop().use { it.test() }

    private fun send(request: HttpRequest): HttpResponse<String> = sendAsync(request).get(DEADLINE.seconds, TimeUnit.SECONDS)

    /** The shop's answer; none of them may ever contain the secret key. */
    private fun sendAsync(request: HttpRequest): CompletableFuture<HttpResponse<String>> =
        http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply { response ->
            check(key !in response.body()) { "the key in an answer of ${request.uri()}" }
            response
        }

    private fun RunningShop.order(amount: String, phone: String): HttpRequest =
        HttpRequest.newBuilder(URI.create("$url/orders")).timeout(DEADLINE)
            .POST(HttpRequest.BodyPublishers.ofString("""{"amount":"$amount","email":"ama@example.com","phone_number":"$phone"}"""))
            .header("content-type", "application/json").build()

    private fun RunningShop.check(reference: String): HttpRequest =
        HttpRequest.newBuilder(URI.create("$url/orders/$reference")).timeout(DEADLINE).GET().build()

    private fun RunningShop.webhook(body: String): HttpRequest =
        HttpRequest.newBuilder(URI.create("$url/webhooks/sika")).timeout(DEADLINE)
            .POST(HttpRequest.BodyPublishers.ofString(body)).header("content-type", "application/json").build()

    private fun json(response: HttpResponse<String>): JsonObject = Json.parseToJsonElement(response.body()).jsonObject

    private fun JsonObject.text(name: String): String? = (this[name] as? kotlinx.serialization.json.JsonPrimitive)?.takeIf { it.isString }?.content

    /** Places an order and returns the shop's answer, after checking it was taken (201). */
    private fun RunningShop.placeOrder(amount: String, phone: String): JsonObject {
        val response = send(order(amount, phone))
        assertEquals(201, response.statusCode(), response.body())
        return json(response)
    }

    /** Waits for [condition], failing after the deadline: a wait that never ends is a hang. */
    private fun <T : Any> waitFor(what: String, condition: () -> T?): T {
        val end = System.nanoTime() + DEADLINE.toNanos()
        while (System.nanoTime() < end) {
            condition()?.let { return it }
            Thread.sleep(50)
        }
        throw AssertionError("waited $DEADLINE for: $what")
    }

    private fun deliveriesFor(reference: String) = sandbox.deliveries().filter { it["reference"] == reference }

    @Test
    fun b39_an_order_paid_by_the_customer_is_fulfilled_by_the_sandboxs_webhook_once() = withShop {
        val reference = placeOrder("20.00", PHONE_PAYS).text("reference")!!

        // The sandbox completes the charge, then delivers charge.success to the shop.
        val delivery = waitFor("webhook delivery for $reference") { deliveriesFor(reference).firstOrNull() }
        assertEquals(200, delivery.httpStatus(), delivery.toString())

        val answer = json(send(check(reference)))
        val transaction = answer.getValue("transaction").jsonObject
        assertAll(
            { assertEquals("paid", answer.text("state")) },
            { assertEquals("webhook", answer.text("fulfilled_by"), "the webhook came first and fulfilled it") },
            { assertEquals(reference, transaction.text("tx_ref")) },
            { assertEquals("successful", transaction.text("status")) },
            { assertEquals("20.00", transaction.text("amount"), "the exact amount") },
            { assertFalse("ama@example.com" in answer.toString(), "the customer's e-mail in $answer") },
            { assertFalse(PHONE_PAYS.removePrefix("+") in answer.toString(), "the customer's phone in $answer") },
        )

        // Deliveries repeat: each is acknowledged, and the order stays fulfilled once, by the first.
        val repeated = sandbox.trigger(reference, 2, false)
        assertEquals(listOf(200, 200), repeated.map { it.httpStatus() })
        assertEquals("webhook", json(send(check(reference))).text("fulfilled_by"))
    }

    @Test
    fun b39_an_unanswered_charge_stays_pending_and_its_webhook_asks_for_redelivery() = withShop {
        val reference = placeOrder("7.50", PHONE_NEVER_ANSWERS).text("reference")!!

        val answer = json(send(check(reference)))
        assertAll(
            { assertEquals("pending", answer.text("state")) },
            { assertEquals(JsonNull, answer["fulfilled_by"]) },
            { assertEquals("pending", answer.getValue("transaction").jsonObject.text("status")) },
        )
        // A notification claiming it succeeded: verified with the service, still pending: 503.
        val delivery = sandbox.trigger(reference, 1, false).single()
        assertEquals(503, delivery.httpStatus(), delivery.toString())
        assertEquals(JsonNull, json(send(check(reference)))["fulfilled_by"], "never fulfilled while pending")
    }

    @Test
    fun b39_an_order_the_shop_does_not_have_is_404_and_nothing_is_sent() = withShop {
        val response = send(check("ORDER-never-placed"))
        assertEquals(404, response.statusCode())
        assertEquals(emptyList<Map<String, Any>>(), sandbox.requests(), "no request reached the service")
    }

    @Test
    fun b39_junk_and_unknown_webhooks_are_answered_400_without_asking_the_service() = withShop {
        val direct = listOf("", "not json", "{", """{"event":"charge.success"}""", """{"event":"charge.success","data":{"reference":7}}""")
        for (body in direct) {
            assertEquals(400, send(webhook(body)).statusCode(), "body: $body")
        }
        // Real deliveries from the sandbox: a reference the shop never had, and a raw body.
        val unknown = sandbox.trigger("ORDER-not-ours", 1, false).single()
        assertEquals(400, unknown.httpStatus(), unknown.toString())
        val junk = sendRawWebhook("ORDER-not-ours", "]]junk[[").single()
        assertEquals(400, junk.httpStatus(), junk.toString())
        assertEquals(emptyList<Map<String, Any>>(), sandbox.requests(), "nothing verified: none of them is an order of ours")
    }

    @Test
    fun b73_a_webhook_body_over_the_cap_is_refused_with_413_unread() = withShop {
        val big = "{\"event\":\"charge.success\",\"pad\":\"" + "x".repeat(MAX_WEBHOOK_BODY_BYTES.toInt()) + "\"}"
        assertEquals(413, send(webhook(big)).statusCode(), "a declared length over the cap")
        // Chunked (no declared length): the shop stops reading at the cap.
        val chunked = HttpRequest.newBuilder(URI.create("$url/webhooks/sika")).timeout(DEADLINE)
            .POST(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofString(big)))
            .header("content-type", "application/json").build()
        assertEquals(413, send(chunked).statusCode(), "a chunked body over the cap")
        assertEquals(emptyList<Map<String, Any>>(), sandbox.requests(), "nothing verified")
    }

    @Test
    fun b39_bad_order_input_is_refused_with_400_before_anything_is_sent() = withShop {
        val badPhone = send(order("20.00", "12"))
        assertEquals(400, badPhone.statusCode(), badPhone.body())
        assertEquals("InvalidInput", json(badPhone).text("error"))
        val badAmount = send(order("-5", PHONE_PAYS))
        assertEquals(400, badAmount.statusCode(), badAmount.body())
        assertEquals("InvalidInput", json(badAmount).text("error"))
        val notJson = HttpRequest.newBuilder(URI.create("$url/orders")).POST(HttpRequest.BodyPublishers.ofString("amount=5")).build()
        assertEquals(400, send(notJson).statusCode())
        assertEquals(emptyList<Map<String, Any>>(), sandbox.requests(), "no request reached the service")
    }

    @Test
    fun b39_concurrent_orders_and_checks_are_each_answered_about_their_own_order() = withShop {
        // Each order of its own amount, so an answer about another one shows in its amount too.
        val amounts = (1..CONCURRENT_ORDERS).map { "$it.${it + 10}" }
        val placed = amounts.map { sendAsync(order(it, PHONE_PAYS)) }.map { it.get(DEADLINE.seconds, TimeUnit.SECONDS) }
        assertTrue(placed.all { it.statusCode() == 201 }, placed.joinToString { "${it.statusCode()} ${it.body()}" })
        val references = placed.map { json(it).text("reference")!! }
        assertEquals(amounts, placed.map { json(it).text("amount") })

        // Checked all at once, again and again, until every order is paid and shipped (by its
        // webhook or its check). Paid comes first: while the webhook's block ships, the check
        // is answered "paid", the order not yet shipped.
        val answers = waitFor("all $CONCURRENT_ORDERS orders paid and shipped") {
            val round = references.map { sendAsync(check(it)) }.map { json(it.get(DEADLINE.seconds, TimeUnit.SECONDS)) }
            for ((index, answer) in round.withIndex()) {
                assertEquals(references[index], answer.text("reference"))
                val transaction = answer.getValue("transaction").jsonObject
                assertEquals(references[index], transaction.text("tx_ref"), "a crossed answer")
                assertEquals(amounts[index], transaction.text("amount"), "a crossed answer")
            }
            round.takeIf { answers -> answers.all { it.text("state") == "paid" && it.text("fulfilled_by") != null } }
        }
        assertTrue(answers.all { it.text("fulfilled_by") in setOf("webhook", "check") }, answers.toString())
        val deliveries = sandbox.deliveries().filter { it["reference"] in references }
        // Delivered, or answered 503 while the order's check held its claim ("in progress",
        // ADR 0071: the service delivers it again).
        assertTrue(deliveries.all { it["delivered"] == true || it["http_status"] == 503 }, deliveries.toString())
    }

    @Test
    fun b39_a_charge_whose_answer_was_lost_is_followed_by_its_reference_and_never_sent_again() = withShop {
        // The service takes the charge, and its answer is lost on the way back.
        sandbox.addFault("/charge", "after_processing", 1, emptyMap())
        val response = send(order("9.99", PHONE_PAYS))
        assertEquals(202, response.statusCode(), response.body())
        val reference = json(response).text("reference")!!

        // It did go through: the webhook fulfils the order, and the check says paid.
        val delivery = waitFor("webhook delivery for $reference") { deliveriesFor(reference).firstOrNull() }
        assertEquals(200, delivery.httpStatus(), delivery.toString())
        assertEquals("paid", json(send(check(reference))).text("state"))
        val charges = sandbox.requests().filter { it["path"] == "/charge" }
        assertEquals(1, charges.size, "the charge was sent once: $charges")
    }

    @Test
    fun b39_a_failing_or_hostile_service_is_answered_as_an_error_never_as_paid() = withShop {
        val reference = placeOrder("4.40", PHONE_NEVER_ANSWERS).text("reference")!!
        try {
            // Every verify answered 500: the check is a 502 naming the error, the webhook a 503
            // (the service delivers it again later).
            sandbox.addFault("/transaction/verify", "status", 100, mapOf("status" to 500))
            val outage = send(check(reference))
            assertEquals(502, outage.statusCode(), outage.body())
            assertEquals("Api", json(outage).text("error"), outage.body())
            assertEquals(503, sandbox.trigger(reference, 1, false).single().httpStatus())

            // A verify answer saying "failed" and then "successful" for the same transaction.
            clearFaults()
            sandbox.addFault("/transaction/verify", "duplicate_keys", 100, mapOf("first" to "failed", "second" to "successful"))
            val hostile = send(check(reference))
            assertEquals(502, hostile.statusCode(), hostile.body())
            assertEquals("UnexpectedResponse", json(hostile).text("error"), hostile.body())
            // Not decidable: delivered again later, never acknowledged as paid.
            assertEquals(503, sandbox.trigger(reference, 1, false).single().httpStatus())
        } finally {
            clearFaults()
        }
        assertEquals(JsonNull, json(send(check(reference)))["fulfilled_by"], "never fulfilled")
    }

    @Test
    fun b39_stopping_the_server_shuts_its_client_down() {
        // The connections open before the shop exists: the kit's and this test's own.
        val before = openConnections()
        val shop = RunningShop()
        try {
            shop.placeOrder("3.00", PHONE_NEVER_ANSWERS) // the shop's client keeps a connection open
        } finally {
            shop.close()
        }
        // client.shutdown() at ApplicationStopped closes it: only the ones from before remain.
        waitFor("the shop's connections closed") { openConnections().takeIf { it == before } }
    }

    private companion object {
        /** Operation name -> `{method, path, expect}`, from the shared test data. */
        val controlOperations: Map<String, JsonObject> =
            Json.parseToJsonElement(File(System.getProperty("sika.fixtures.dir"), "sandbox_control.json").readText())
                .jsonObject.getValue("operations").jsonObject.mapValues { it.value.jsonObject }
    }

    @Test
    fun b39_the_readmes_ktor_snippets_are_this_tested_code() {
        val readme = File(System.getProperty("sika.kotlin.readme")).readText()
        val source = File("src/main/kotlin/dev/sika/examples/ktor/Shop.kt").readText()
        // A README block from this file starts with the comment naming it.
        val header = "// From examples/ktor-server/src/main/kotlin/dev/sika/examples/ktor/Shop.kt\n"
        val blocks = Regex("```kotlin\n(.*?)```", RegexOption.DOT_MATCHES_ALL).findAll(readme)
            .map { it.groupValues[1] }.filter { it.startsWith(header) }.map { it.removePrefix(header) }.toList()
        assertEquals(2, blocks.size, "the Ktor section's and the ledger section's snippets")
        for (block in blocks) {
            // The same lines, at the indentation they have in the file.
            val found = (0..12).any { indent -> block.lines().joinToString("\n") { if (it.isEmpty()) it else " ".repeat(indent) + it } in source }
            assertTrue(found, "not in Shop.kt as it is:\n$block")
        }
    }
}
