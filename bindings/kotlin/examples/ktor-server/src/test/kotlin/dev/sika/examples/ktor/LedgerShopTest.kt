package dev.sika.examples.ktor

import dev.sika.Client
import dev.sika.ClientConfig
import dev.sika.EventKind
import dev.sika.EventSource
import dev.sika.Ledger
import dev.sika.LedgerOptions
import dev.sika.SecretKey
import dev.sika.SecretUrl
import dev.sika.testing.SikaSandbox
import dev.sika.testing.SikaSandboxExtension
import io.ktor.server.cio.CIO
import io.ktor.server.engine.embeddedServer
import java.net.URI
import java.net.URLEncoder
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.Future
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.extension.ExtendWith

private const val PAYS = "+233244120000"
private const val NEVER_ANSWERS = "+233244123333"
/** Paid orders whose notification the sandbox delivers on its own, REPEAT times one after the other. */
private const val REPEATED_ORDERS = 25
/** Paid orders whose notification is first delivered AT_ONCE times at the same moment, all orders at once. */
private const val BURST_ORDERS = 25
private const val UNPAID_ORDERS = 5
/** The sandbox's own deliveries of each notification (its `webhook_repeat` setting). */
private const val REPEAT = 2
/** Deliveries of each notification the test forces, all at once (the sandbox's concurrent send). */
private const val AT_ONCE = 3
/** A wait this long is a hang: the whole test takes a few seconds. */
private val DEADLINE: Duration = Duration.ofSeconds(60)

/**
 * B182: the Ktor shop (src/main/kotlin) on a PostgreSQL ledger, as a merchant deploys it: its
 * own throwaway cluster ([PgCluster]), ~50 orders charged through the ledger at once, and every
 * notification delivered several times, partly at once, racing the customers' checks (which
 * settle through the ledger too). The order book ships without any check of its own
 * ([Orders.ship] is not idempotent), so a double fulfilment would show: each paid order is
 * shipped exactly once, every other delivery answered 200 (already fulfilled) or 503 (in progress),
 * and an unpaid order never.
 */
@ExtendWith(SikaSandboxExtension::class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LedgerShopTest(private val sandbox: SikaSandbox) {
    private val cluster = PgCluster()
    private val http: HttpClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()

    @AfterAll
    fun stopCluster() = cluster.close()

    private fun send(request: HttpRequest): HttpResponse<String> = http.send(request, HttpResponse.BodyHandlers.ofString())

    private fun json(body: String): JsonObject = Json.parseToJsonElement(body).jsonObject

    /** The sandbox's status of [reference]'s transaction (its control API, tests/fixtures/sandbox_control.json). */
    private fun sandboxStatus(reference: String): String? {
        val path = "/__sandbox/transactions/" + URLEncoder.encode(reference, Charsets.UTF_8)
        val response = send(HttpRequest.newBuilder(URI.create(sandbox.baseUrl() + path)).timeout(DEADLINE).GET().build())
        assertEquals(200, response.statusCode(), response.body())
        return json(response.body())["data"]?.jsonObject?.get("status")?.jsonPrimitive?.content
    }

    private fun <T : Any> waitFor(what: String, condition: () -> T?): T {
        val end = System.nanoTime() + DEADLINE.toNanos()
        while (System.nanoTime() < end) {
            condition()?.let { return it }
            Thread.sleep(20)
        }
        throw AssertionError("waited $DEADLINE for: $what")
    }

    /** Places [count] orders at once (each charged through the ledger) and returns their references. */
    private fun placeOrders(url: String, count: Int, phone: String): List<String> {
        val placed = List(count) {
            http.sendAsync(
                HttpRequest.newBuilder(URI.create("$url/orders")).timeout(DEADLINE).header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("""{"amount":"12.50","email":"ama@example.com","phone_number":"$phone"}""")).build(),
                HttpResponse.BodyHandlers.ofString(),
            )
        }.map { it.get(DEADLINE.seconds, TimeUnit.SECONDS) }
        assertTrue(placed.all { it.statusCode() == 201 }, placed.joinToString { "${it.statusCode()} ${it.body()}" })
        return placed.map { json(it.body()).getValue("reference").jsonPrimitive.content }
    }

    @Test
    fun b182_the_shop_on_postgresql_ships_each_paid_order_once_however_often_it_is_notified() {
        val orders = Orders()
        val ledger = Ledger.postgres(SecretUrl(cluster.url), LedgerOptions(maxConnections = 16L))
        val client = Client(ClientConfig(SecretKey(sandbox.secretKey()), sandbox.baseUrl(), timeoutMs = 10_000))
        // The shop closes the client and the ledger when it stops.
        val server = embeddedServer(CIO, port = 0, host = "127.0.0.1") { shop(client, ledger, orders) }.start(wait = false)
        val pool = Executors.newFixedThreadPool(2 * BURST_ORDERS)
        try {
            val url = "http://127.0.0.1:${runBlocking { server.engine.resolvedConnectors().first().port }}"
            sandbox.changeSettings(mapOf("webhook_url" to "$url/webhooks/sika", "webhook_repeat" to REPEAT))

            // The customer's check of an order (it settles through the ledger when paid).
            fun check(reference: String) {
                val check = send(HttpRequest.newBuilder(URI.create("$url/orders/$reference")).timeout(DEADLINE).GET().build())
                assertEquals(200, check.statusCode(), check.body())
                assertEquals("paid", json(check.body())["state"]?.jsonPrimitive?.content, check.body())
            }

            // 1. Orders placed at once, charged through the ledger (which records each first). As
            // each charge completes, the sandbox delivers its notification REPEAT times, and the
            // customer checks the order meanwhile.
            val repeated = placeOrders(url, REPEATED_ORDERS, PAYS)
            val unpaid = placeOrders(url, UNPAID_ORDERS, NEVER_ANSWERS)
            val racing = mutableListOf<Future<*>>()
            val waiting = repeated.toMutableSet()
            waitFor("all $REPEATED_ORDERS charges completed") {
                for (reference in waiting.toList().filter { sandboxStatus(it) == "successful" }) {
                    waiting.remove(reference)
                    racing += pool.submit { check(reference) }
                }
                waiting.isEmpty().takeIf { it }
            }

            // 2. Orders whose first notification is delivered AT_ONCE times at the same moment
            // (no delivery until all are paid), all orders at once, racing their customers' checks.
            sandbox.setWebhookUrl(null)
            val burst = placeOrders(url, BURST_ORDERS, PAYS)
            waitFor("all $BURST_ORDERS charges completed") { burst.all { sandboxStatus(it) == "successful" }.takeIf { it } }
            sandbox.setWebhookUrl("$url/webhooks/sika")
            val start = CountDownLatch(1)
            for (reference in burst) {
                racing += pool.submit { start.await(); sandbox.trigger(reference, AT_ONCE, true) }
                racing += pool.submit { start.await(); check(reference) }
            }
            start.countDown()
            racing.forEach { it.get(DEADLINE.seconds, TimeUnit.SECONDS) }
            val paid = repeated + burst

            // The unpaid ones, notified too (a forged or early notification): still pending, 503.
            val unpaidAnswers = unpaid.flatMap { sandbox.trigger(it, 2, true) }.map { (it["http_status"] as Number).toInt() }
            assertEquals(List(2 * UNPAID_ORDERS) { 503 }, unpaidAnswers)

            val deliveries = waitFor("every delivery answered") {
                sandbox.deliveries().filter { it["reference"] in paid }
                    .takeIf { all -> all.size == REPEATED_ORDERS * REPEAT + BURST_ORDERS * AT_ONCE && all.all { it["http_status"] != null } }
            }
            // 503: another delivery of the same order held the claim ("in progress", ADR 0071),
            // answered so that the service delivers it again.
            assertEquals(
                emptyList<Map<String, Any?>>(),
                deliveries.filter { (it["http_status"] as Number).toInt() !in setOf(200, 503) },
                "every delivery of a paid order answered 200, or 503 while another held the claim",
            )

            // The order book: each paid order shipped exactly once, the unpaid ones never.
            val shipped = orders.shipments().groupingBy { it.first }.eachCount()
            assertEquals(paid.associateWith { 1 }, shipped, "shipments per order: ${orders.shipments()}")

            // The ledger's record: one claim each, fulfilled; every other webhook decision
            // "already fulfilled" or "in progress".
            runBlocking {
                for (reference in paid) {
                    val record = checkNotNull(ledger.payment(reference)) { reference }
                    assertEquals(1L, record.claimsOffered, "$record")
                    assertNotNull(record.fulfilledAt, "$record")
                    assertEquals(1, record.events.count { it.kind == EventKind.FULFIL }, "$record")
                    val answers = record.events.filter { it.source == EventSource.WEBHOOK }.map { it.kind }.toSet()
                    assertTrue(answers.all { it in setOf(EventKind.FULFIL, EventKind.ALREADY_FULFILLED, EventKind.IN_PROGRESS) }, "$record")
                }
                for (reference in unpaid) {
                    assertNull(ledger.payment(reference)!!.fulfilledAt)
                }
            }
        } finally {
            pool.shutdownNow()
            server.stop(100, 5_000)
        }
    }
}
