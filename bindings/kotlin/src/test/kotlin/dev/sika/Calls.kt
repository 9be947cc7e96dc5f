package dev.sika

import java.io.File
import java.math.BigDecimal
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.boolean
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import kotlinx.serialization.json.put
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.DynamicTest.dynamicTest

/**
 * The one runner of client calls for the scenario files of the behaviours the core decides
 * (ADR 0037; the row vocabulary is tests/fixtures/scenarios/README.md). The same runner as
 * core/tests/support/calls.rs, Python's `check_call_row` and Swift's Calls.swift.
 */
object Calls {
    /** An input's text: a string, or `{repeat, times}`. */
    fun text(value: JsonElement): String = when (value) {
        is JsonObject -> value["repeat"]!!.jsonPrimitive.content.repeat(value["times"]!!.jsonPrimitive.int)
        else -> value.jsonPrimitive.content
    }

    /** A body's bytes: a text input, `{"hex": ...}` (raw bytes), or a list of them joined. */
    fun bodyBytes(value: JsonElement): ByteArray = when {
        value is JsonArray -> value.fold(ByteArray(0)) { joined, part -> joined + bodyBytes(part) }
        value is JsonObject && "hex" in value -> value["hex"]!!.jsonPrimitive.content.chunked(2).map { it.toInt(16).toByte() }.toByteArray()
        else -> text(value).toByteArray()
    }

    /** The order a row's `expected` describes. */
    fun expectedWith(input: JsonObject): ExpectedPayment {
        val expected = input["expected"]!!.jsonObject
        return ExpectedPayment(BigDecimal(text(expected["amount"]!!)), text(expected["currency"]!!))
    }

    /** A valid charge (the shared defaults of bad_inputs.json) with the row's fields changed. */
    fun chargeWith(input: JsonObject): ChargeRequest {
        fun field(name: String, default: String) = input[name]?.let(::text) ?: default
        return ChargeRequest(
            amount = BigDecimal(field("amount", "10.50")),
            email = field("email", "ama@example.com"),
            phoneNumber = field("phone_number", "+233244125678"),
            reference = field("reference", "BAD-INPUT-CHARGE"),
            currency = field("currency", "GHS"),
            provider = field("provider", "MTN"),
            callbackUrl = field("callback_url", "https://shop.example.com/return"),
        )
    }

    /** A variant's name as the fixtures spell it: `AccountNumber`, `Unknown`, `Investigate`. */
    fun variant(value: Any): String = when (value) {
        is Enum<*> -> value.name.split("_").joinToString("") { it.lowercase().replaceFirstChar(Char::uppercase) }
        else -> value::class.simpleName!!
    }

    /** A transaction's fields as the rows compare them. */
    private fun transactionAnswer(transaction: Transaction): JsonObject {
        val status = transaction.status
        return buildJsonObject {
            put("tx_ref", transaction.txRef)
            put("status", variant(status))
            put("status_value", (status as? TransactionStatus.Unknown)?.value)
            put("merchant_action", variant(status.merchantAction()))
            put("is_final", status.isFinal())
        }
    }

    /**
     * The keys a row, its `input`, its `expect` and a single answer may have: the one vocabulary of
     * every runner (tests/fixtures/scenarios/vocabulary.json); any other key is a typo, and the
     * row fails rather than pass without checking it.
     */
    private val VOCABULARY = Json.parseToJsonElement(File(FIXTURES, "scenarios/vocabulary.json").readText()).jsonObject
    private fun words(part: String): List<String> = VOCABULARY[part]!!.jsonArray.map { it.jsonPrimitive.content }
    private val ROW_KEYS = words("row").toSet()
    private val INPUT_KEYS = words("input").toSet()
    private val ANSWER_FIELDS = words("answer")
    private val EXPECT_KEYS = words("expect").toSet() + ANSWER_FIELDS

    /** The keys of a row outside the vocabulary, each with where it is. */
    fun unknownKeys(row: JsonObject): List<String> {
        val input = row["input"]!!.jsonObject
        val parts = mutableListOf(
            Triple("the row", row, ROW_KEYS),
            Triple("input", input, INPUT_KEYS),
            Triple("expect", row["expect"]!!.jsonObject, EXPECT_KEYS),
        )
        input["called_before"]?.jsonObject?.let { parts.add(Triple("called_before's input", it["input"]!!.jsonObject, INPUT_KEYS)) }
        return parts.flatMap { (part, obj, known) -> obj.keys.filter { it !in known }.map { "$it in $part" } }
    }

    private suspend fun answer(client: Client, operation: String, input: JsonObject): JsonElement {
        val country = input["country"]?.let(::text)
        return when (operation) {
            "countries" -> JsonArray(
                countries().map { c ->
                    buildJsonObject {
                        put("code", c.code); put("name", c.name); put("currency", c.currency)
                        put("bank_account_type", variant(c.bankAccountType)); put("mobile_money", c.mobileMoney)
                    }
                },
            )
            "list_mobile_money_providers" -> JsonArray(
                client.listMobileMoneyProviders(country).map { p ->
                    buildJsonObject {
                        put("code", p.code); put("country", p.country); put("currency", p.currency)
                        put("provider_type", p.providerType)
                    }
                },
            )
            "list_banks" -> JsonArray(
                client.listBanks(country).map { b ->
                    buildJsonObject {
                        put("code", b.code); put("country", b.country); put("currency", b.currency)
                        put("account_type", variant(b.accountType))
                    }
                },
            )
            "verify_transaction" -> transactionAnswer(client.verifyTransaction(text(input["reference"]!!)))
            // The runner's quick polling (tests/fixtures/scenarios/README.md).
            "await_final_status" -> transactionAnswer(
                client.awaitFinalStatus(
                    text(input["reference"]!!),
                    AwaitOptions(initialDelayMs = 50, intervalMs = 50, maxIntervalMs = 200, timeoutMs = 5_000, cancellation = null),
                ),
            )
            "refresh_banks" -> JsonArray(
                client.refreshBanks(country).map { b ->
                    buildJsonObject { put("code", b.code); put("country", b.country); put("currency", b.currency) }
                },
            )
            "initiate_charge" -> {
                val response = client.initiateCharge(chargeWith(input))
                buildJsonObject { put("http_status", response.httpStatus); put("accepted", response.status) }
            }
            "confirm_payment" -> {
                val check = client.confirmPayment(text(input["reference"]!!), expectedWith(input))
                buildJsonObject {
                    put("check", variant(check))
                    val transaction = when (check) {
                        is PaymentCheck.Confirmed -> check.transaction
                        is PaymentCheck.NotYet -> check.transaction
                        is PaymentCheck.NotPaid -> check.transaction
                        is PaymentCheck.Mismatch -> check.transaction
                    }
                    put("tx_ref", transaction.txRef)
                    if (check is PaymentCheck.Mismatch) {
                        put("field", check.field); put("expected_value", check.expected); put("actual_value", check.actual)
                    }
                    if (check is PaymentCheck.NotPaid) put("action", variant(check.action))
                }
            }
            "handle_webhook" -> {
                val body = bodyBytes(input["body"]!!)
                val expected = expectedWith(input)
                val decision = client.handleWebhook(body, expected)
                if (input["repeat_delivery"]?.jsonPrimitive?.boolean == true) {
                    assertEquals(decision, client.handleWebhook(body, expected), "a repeated delivery gets the same decision")
                }
                val (transaction, reason) = when (decision) {
                    is WebhookDecision.Fulfil -> decision.transaction to null
                    is WebhookDecision.Investigate -> decision.transaction to decision.reason
                    is WebhookDecision.Ignore -> null to decision.reason
                    is WebhookDecision.RetryLater -> null to decision.reason
                    is WebhookDecision.Reject -> null to decision.reason
                }
                buildJsonObject {
                    put("decision", variant(decision))
                    put("http_status", decision.httpStatus())
                    put("tx_ref", transaction?.txRef)
                    put("reason", reason)
                }
            }
            else -> error("unknown operation $operation")
        }
    }

    /** Every row of a behaviour's scenario file as a dynamic test, each named by its note. */
    fun rows(sandbox: Sandbox, name: String): List<DynamicTest> = scenarioCases(name).mapIndexed { index, row ->
        val label = "$name #$index (${row["note"]!!.jsonPrimitive.content})"
        dynamicTest(label) { runBlocking { checkRow(sandbox, row, label) } }
    }

    /** Runs one row against [sandbox] (its log cleared first) and checks everything it expects. */
    suspend fun checkRow(sandbox: Sandbox, row: JsonObject, label: String) {
        assertEquals(emptyList<String>(), unknownKeys(row), "$label: keys outside the vocabulary")
        val operation = row["operation"]!!.jsonPrimitive.content
        val input = row["input"]!!.jsonObject
        val expect = row["expect"]!!.jsonObject
        val amount = (input["amount"] ?: input["expected"]?.jsonObject?.get("amount"))?.let(::text)
        if (amount != null && amount.toBigDecimalOrNull() == null) {
            // BigDecimal cannot hold it (NaN): no Kotlin caller can pass it, so the type itself is
            // the rejection. The row must expect one; an amount it wants accepted fails here.
            assertEquals(JsonPrimitive("amount"), expect["invalid_input"], "$label: BigDecimal cannot hold it")
            return
        }
        var config = sandbox.config(input["secret_key"]?.let(::text) ?: KEY)
        input["settings"]?.jsonObject?.forEach { (name, value) ->
            config = when (name) {
                "max_retries" -> config.copy(maxRetries = value.jsonPrimitive.int)
                "bank_cache_ttl_seconds" -> config.copy(bankCacheTtlSeconds = value.jsonPrimitive.long)
                else -> error("$label: unknown setting $name")
            }
        }
        Client(config).use { client ->
            input["seed"]?.jsonObject?.let { seed ->
                val amount = seed["amount"]!!.jsonPrimitive.content
                sandbox.seedTransaction(transactionObject(text(input["reference"]!!), seed["status"]!!.jsonPrimitive.content, amount))
            }
            input["faults"]?.jsonArray?.forEach { sandbox.addFault(it.jsonObject) }
            input["answered_about"]?.jsonObject?.let { other ->
                fun field(name: String) = other[name]!!.jsonPrimitive.content
                val data = transactionObject(field("reference"), field("status"), field("amount"))
                val body = """{"status":true,"message":"Verification successful","data":$data}"""
                sandbox.fault("/transaction/verify/${text(input["reference"]!!)}", "body", "body" to body)
            }
            input["called_before"]?.jsonObject?.let { first ->
                answer(client, first["operation"]!!.jsonPrimitive.content, first["input"]!!.jsonObject)
            }
            if (input["charged_before"]?.jsonPrimitive?.boolean == true) {
                val first = answer(client, operation, input).jsonObject
                assertEquals(JsonPrimitive(200), first["http_status"], "$label: the first call")
                assertEquals(JsonPrimitive(true), first["accepted"], "$label: the first call")
            }
            sandbox.clearRequests()
            val started = System.nanoTime()
            val result = runCatching {
                val times = input["concurrent"]?.jsonPrimitive?.int
                if (times == null) {
                    answer(client, operation, input)
                } else {
                    val answers = coroutineScope { List(times) { async { answer(client, operation, input) } }.awaitAll() }
                    answers.forEach { assertEquals(answers[0], it, "$label: concurrent answers differ") }
                    answers[0]
                }
            }
            val elapsedMs = (System.nanoTime() - started) / 1_000_000
            val sent = sandbox.requests()
            expect["min_elapsed_ms"]?.let { least ->
                assertTrue(elapsedMs >= least.jsonPrimitive.long, "$label: the call took $elapsedMs ms")
            }
            expect["invalid_input"]?.let { field ->
                val error = assertInstanceOf(SikaException.InvalidInput::class.java, result.exceptionOrNull(), "$label: $result")
                assertEquals(field.jsonPrimitive.content, error.field, label)
                assertEquals(emptyList<JsonObject>(), sent, "$label: rejected input reached the service")
                return
            }
            val error = result.exceptionOrNull()
            if (error != null && error !is SikaException) throw error
            val want = expect["error"]
            if (want != null) {
                assertEquals(want.jsonPrimitive.content, error?.let(::variant), "$label: $result")
                expect["http_status"]?.let { status ->
                    val httpStatus = when (error) {
                        is SikaException.Api -> error.httpStatus
                        is SikaException.UnexpectedResponse -> error.httpStatus
                        else -> throw AssertionError("$label: $error has no HTTP status")
                    }
                    assertEquals(status.jsonPrimitive.int, httpStatus, label)
                }
                expect["retry_after_seconds"]?.let { hint ->
                    val limited = assertInstanceOf(SikaException.RateLimited::class.java, error)
                    assertEquals(hint.jsonPrimitive.long, limited.retryAfterSeconds?.toLong(), label)
                }
                // A text, or a list of texts each in the message.
                expect["message_contains"]?.let { parts ->
                    val message = error!!.message.orEmpty()
                    (parts as? JsonArray ?: JsonArray(listOf(parts))).forEach { part ->
                        assertTrue(message.contains(part.jsonPrimitive.content), "$label: $message")
                    }
                }
            } else {
                assertNull(error, "$label: $error")
                checkAnswer(result.getOrThrow(), expect, label)
            }
            val wantSent = expect["sent"]!!.jsonArray
            assertEquals(wantSent.size, sent.size, "$label: $sent")
            sent.zip(wantSent).forEach { (request, wanted) ->
                wanted.jsonObject.forEach { (name, value) -> assertEquals(value, request[name] ?: JsonNull, "$label: $name of $request") }
            }
        }
    }

    private fun checkAnswer(answer: JsonElement, expect: JsonObject, label: String) {
        if (answer is JsonArray) {
            expect["count"]?.let { assertEquals(it.jsonPrimitive.int, answer.size, label) }
            expect["min_count"]?.let { assertTrue(answer.size >= it.jsonPrimitive.int, "$label: ${answer.size}") }
            expect["codes_in_order"]?.let { codes -> assertEquals(codes, JsonArray(answer.map { it.jsonObject["code"]!! }), label) }
            expect["items"]?.jsonObject?.forEach { (code, fields) ->
                val item = answer.map { it.jsonObject }.singleOrNull { it["code"] == JsonPrimitive(code) }
                    ?: error("$label: no item $code")
                fields.jsonObject.forEach { (name, value) -> assertEquals(value, item[name], "$label: $name of $item") }
            }
            expect["codes"]?.let { codes ->
                assertEquals(codes, JsonArray(answer.map { it.jsonObject["code"]!! }.sortedBy { it.jsonPrimitive.content }), label)
            }
            expect["every"]?.jsonObject?.forEach { (name, value) ->
                answer.forEach { item -> assertEquals(value, item.jsonObject[name], "$label: $name of $item") }
            }
        } else {
            for (name in ANSWER_FIELDS) {
                expect[name]?.let { assertEquals(it, answer.jsonObject[name], "$label: $name") }
            }
            expect["reason_contains"]?.let { part ->
                val reason = answer.jsonObject["reason"]?.jsonPrimitive?.contentOrNull.orEmpty()
                assertTrue(reason.contains(part.jsonPrimitive.content), "$label: the reason $reason")
            }
        }
    }
}
