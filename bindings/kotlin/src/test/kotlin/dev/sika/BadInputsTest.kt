package dev.sika

import java.io.File
import java.math.BigDecimal
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.DynamicTest.dynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows

/**
 * B30: the shared bad-input matrix (tests/fixtures/bad_inputs.json). Each input gets a typed
 * error before anything is sent, or a correct, path-safe request and the service's typed answer;
 * through the suspend and the blocking client. The same matrix as core/tests/bad_inputs.rs and
 * bindings/python/tests/test_bad_inputs.py. Also every ClientConfig and AwaitOptions setting
 * made negative: `InvalidInput` naming it, from the constructors and awaitFinalStatus.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputsTest {
    private val sandbox = Sandbox()
    private val matrix = Json.parseToJsonElement(File(FIXTURES, "bad_inputs.json").readText())
        .jsonObject["cases"]!!.jsonArray.map { it.jsonObject }

    @AfterAll
    fun stopSandbox() = sandbox.close()

    /** The calls of one client kind, so that both kinds run the whole matrix. */
    private interface Calls {
        fun newClient(config: ClientConfig)
        fun verify(reference: String)
        fun providers(country: String?)
        fun banks(country: String?)
        fun charge(request: ChargeRequest)
    }

    private fun suspendCalls(client: Client) = object : Calls {
        override fun newClient(config: ClientConfig) = Client(config).close()
        override fun verify(reference: String) = runBlocking { client.verifyTransaction(reference) }.let {}
        override fun providers(country: String?) = runBlocking { client.listMobileMoneyProviders(country) }.let {}
        override fun banks(country: String?) = runBlocking { client.listBanks(country) }.let {}
        override fun charge(request: ChargeRequest) = runBlocking { client.initiateCharge(request) }.let {}
    }

    private fun blockingCalls(client: BlockingClient) = object : Calls {
        override fun newClient(config: ClientConfig) = BlockingClient(config).close()
        override fun verify(reference: String) = client.verifyTransaction(reference).let {}
        override fun providers(country: String?) = client.listMobileMoneyProviders(country).let {}
        override fun banks(country: String?) = client.listBanks(country).let {}
        override fun charge(request: ChargeRequest) = client.initiateCharge(request).let {}
    }

    // The bank cache is off: every well-formed bank list must reach the service to be checked.
    private fun config() = ClientConfig(SecretKey(KEY), sandbox.url, timeoutMs = 10_000, bankCacheTtlSeconds = 0)

    @Test
    fun testB30TheMatrixIsComplete() {
        assertTrue(matrix.size >= 60, "the matrix shrank: ${matrix.size}")
    }

    @TestFactory
    fun testB30EveryBadInputThroughTheSuspendClient(): List<DynamicTest> = matrix.map { case ->
        dynamicTest("suspend: ${label(case)}") { Client(config()).use { client -> check(case, suspendCalls(client)) } }
    }

    @TestFactory
    fun testB30EveryBadInputThroughTheBlockingClient(): List<DynamicTest> = matrix.map { case ->
        dynamicTest("blocking: ${label(case)}") { BlockingClient(config()).use { client -> check(case, blockingCalls(client)) } }
    }

    private fun check(case: JsonObject, calls: Calls) {
        sandbox.reset()
        val expect = case["expect"]!!.jsonObject
        val input = case["input"]!!.jsonObject
        val label = label(case)
        val amount = input["amount"]?.let(::text)
        if (amount != null && amount.toBigDecimalOrNull() == null) {
            // BigDecimal cannot hold it (NaN): no Kotlin caller can pass it, so the type itself is
            // the rejection. The matrix must expect one; an amount it wants accepted fails here.
            assertEquals(JsonPrimitive("amount"), expect["invalid_input"], "$label: BigDecimal cannot hold it")
            return
        }
        val result = runCatching { run(case["operation"]!!.jsonPrimitive.content, input, calls) }
        val sent = sandbox.requests()
        when {
            "invalid_input" in expect -> {
                val error = assertInstanceOf(SikaException.InvalidInput::class.java, result.exceptionOrNull(), "$label: $result")
                assertEquals(expect["invalid_input"]!!.jsonPrimitive.content, error.field, label)
                assertEquals(emptyList<JsonObject>(), sent, "$label: rejected input reached the service")
            }
            "configuration" in expect -> {
                assertInstanceOf(SikaException.Configuration::class.java, result.exceptionOrNull(), "$label: $result")
                assertEquals(emptyList<JsonObject>(), sent, label)
            }
            else -> {
                assertEquals(expect["error"]?.jsonPrimitive?.content ?: "Ok", outcomeKind(result), "$label: $result")
                assertEquals(1, sent.size, "$label: $sent")
                expect["sent_path"]?.let { path ->
                    assertEquals(path, sent[0]["path"], label)
                    assertEquals(JsonNull, sent[0]["query"], label)
                }
                expect["sent_query"]?.let { query -> assertEquals(query, sent[0]["query"], label) }
            }
        }
    }

    private fun run(operation: String, input: JsonObject, calls: Calls) {
        val country = input["country"]?.let(::text)
        when (operation) {
            "verify_transaction" -> calls.verify(text(input["reference"]!!))
            "list_mobile_money_providers" -> calls.providers(country)
            "list_banks" -> calls.banks(country)
            "initiate_charge" -> calls.charge(chargeWith(input))
            "new_client" -> calls.newClient(
                ClientConfig(SecretKey(input["secret_key"]?.let(::text) ?: KEY), input["base_url"]?.let(::text) ?: sandbox.url),
            )
            else -> error("unknown operation $operation")
        }
    }

    /** A valid charge (the matrix's defaults) with the case's one field changed. */
    private fun chargeWith(input: JsonObject): ChargeRequest {
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

    /** An input's text: a string, or `{repeat, times}`. */
    private fun text(value: JsonElement): String = when (value) {
        is JsonObject -> value["repeat"]!!.jsonPrimitive.content.repeat(value["times"]!!.jsonPrimitive.int)
        else -> value.jsonPrimitive.content
    }

    private fun label(case: JsonObject): String {
        // Control characters would make the report unreadable: show them escaped.
        val input = case["input"].toString().replace(Regex("[\\p{Cntrl}]")) { "\\u%04x".format(it.value[0].code) }
        return "${case["operation"]!!.jsonPrimitive.content} $input (${case["note"]!!.jsonPrimitive.content})"
    }

    // ---- Negative settings: they are signed (Java has no unsigned integers), so no type stops a
    // negative one; the core refuses it, with the same field in every language.

    /** Each numeric ClientConfig setting at -1, with the field the core names. */
    private fun negativeClientSettings(): List<Pair<String, ClientConfig>> {
        val valid = config()
        return listOf(
            "timeout_ms" to valid.copy(timeoutMs = -1),
            "connect_timeout_ms" to valid.copy(connectTimeoutMs = -1),
            "max_retries" to valid.copy(maxRetries = -1),
            "bank_cache_ttl_seconds" to valid.copy(bankCacheTtlSeconds = -1),
            "not_found_grace_ms" to valid.copy(notFoundGraceMs = -1),
            "max_connections_per_host" to valid.copy(maxConnectionsPerHost = -1),
            "pool_idle_timeout_ms" to valid.copy(poolIdleTimeoutMs = -1),
        )
    }

    /** Each numeric AwaitOptions field at -1, with the field the core names. */
    private val negativeAwaitOptions = listOf(
        "initial_delay_ms" to AwaitOptions(initialDelayMs = -1),
        "interval_ms" to AwaitOptions(intervalMs = -1),
        "max_interval_ms" to AwaitOptions(maxIntervalMs = -1),
        "timeout_ms" to AwaitOptions(timeoutMs = -1),
    )

    @Test
    fun testB30TheNegativeSettingListsCoverEveryNumericSetting() {
        // A numeric setting added later must join the lists above.
        assertEquals(numericFields(ClientConfig::class.java), negativeClientSettings().map { it.first }.toSet())
        assertEquals(numericFields(AwaitOptions::class.java), negativeAwaitOptions.map { it.first }.toSet())
    }

    @TestFactory
    fun testB30EveryNegativeClientSettingIsInvalidInput(): List<DynamicTest> = negativeClientSettings().flatMap { (field, config) ->
        listOf(
            dynamicTest("Client: $field") { assertRefused(field) { Client(config).close() } },
            dynamicTest("BlockingClient: $field") { assertRefused(field) { BlockingClient(config).close() } },
        )
    }

    @TestFactory
    fun testB30EveryNegativeAwaitOptionIsInvalidInputAndSendsNothing(): List<DynamicTest> = negativeAwaitOptions.flatMap { (field, options) ->
        listOf(
            dynamicTest("Client.awaitFinalStatus: $field") {
                Client(config()).use { client -> assertRefused(field) { runBlocking { client.awaitFinalStatus("ORDER-1", options) } } }
            },
            dynamicTest("BlockingClient.awaitFinalStatus: $field") {
                BlockingClient(config()).use { client -> assertRefused(field) { client.awaitFinalStatus("ORDER-1", options) } }
            },
        )
    }

    /** [call] throws InvalidInput naming [field] as negative, and the service heard nothing. */
    private fun assertRefused(field: String, call: () -> Unit) {
        sandbox.reset()
        val error = assertThrows<SikaException.InvalidInput> { call() }
        assertEquals(field, error.field, error.message)
        assertEquals("must not be negative", error.reason, error.message)
        assertEquals(emptyList<JsonObject>(), sandbox.requests(), "$field: a refused setting reached the service")
    }

    /** The snake_case names (as the core reports them) of a record's Long and Int fields. */
    private fun numericFields(record: Class<*>): Set<String> = record.declaredFields
        .filter { it.type == Long::class.javaObjectType || it.type == Int::class.javaObjectType }
        .map { field -> field.name.replace(Regex("[A-Z]")) { "_" + it.value.lowercase() } }
        .toSet()
}
