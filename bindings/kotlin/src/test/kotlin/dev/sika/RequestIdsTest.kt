package dev.sika

import java.io.File
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.DynamicTest.dynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows

/**
 * B200-B206: every request carries `X-Request-Id` (one call id, the attempt's number), and
 * every error that follows a request carries the id to quote to support: the service's, else
 * Sika's. The cases are tests/fixtures/request_ids.json, the same as core/tests/request_ids.rs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestIdsTest {
    private val sandbox = Sandbox()
    private val file = Json.parseToJsonElement(File(FIXTURES, "request_ids.json").readText()).jsonObject
    private val sent = Regex("^(sika_[0-9a-f]{32})_([0-9]+)$")

    @AfterAll
    fun stopSandbox() = sandbox.close()

    private fun JsonObject.text(name: String) = this[name]!!.jsonPrimitive.content

    private fun parts(id: String): Pair<String, Int> {
        val match = sent.matchEntire(id) ?: error("not a Sika request id: $id")
        return match.groupValues[1] to match.groupValues[2].toInt()
    }

    private fun run(case: JsonObject) = runBlocking {
        val id = case.text("id")
        sandbox.reset()
        case["fault"]?.jsonObject?.let { fault ->
            sandbox.fault(fault.text("path"), fault.text("kind"), fault.text("count").toInt(), fault["options"]!!.jsonObject)
        }
        val config = ClientConfig(
            SecretKey(case["secret_key"]?.jsonPrimitive?.content ?: KEY),
            sandbox.url,
            timeoutMs = file["budget_ms"]!!.jsonPrimitive.long,
            maxRetries = file["max_retries"]!!.jsonPrimitive.long.toInt(),
        )
        val result = Client(config).use { client ->
            runCatching {
                when (case.text("call")) {
                    "verify" -> client.verifyTransaction(case.text("reference"))
                    "providers" -> client.listMobileMoneyProviders(case.text("country"))
                    "charge" -> client.initiateCharge(charge(case.text("reference"), "+233241234567", "10"))
                    else -> error("unknown call in $id")
                }
            }
        }
        assertEquals(case.text("error"), outcomeKind(result), "$id: $result")
        val error = result.exceptionOrNull() as SikaException
        val requests = sandbox.requests()
        assertEquals(case["attempts"]!!.jsonPrimitive.long.toInt(), requests.size, "$id: $requests")
        val calls = requests.map { parts(it.text("request_id")) }
        assertEquals((1..requests.size).map { calls[0].first to it }, calls, id)
        val quoted = error.requestId ?: error("$id: no request id in $error")
        when (case.text("quote")) {
            "service" -> assertEquals(requests.last().text("answered_request_id"), quoted, id)
            "sika" -> assertEquals(requests.last().text("request_id"), quoted, id)
            else -> {
                assertTrue(quoted.length <= file["max_request_id_chars"]!!.jsonPrimitive.long, id)
                assertFalse(quoted.any { it.isISOControl() || it == '\u2028' }, "$id: $quoted")
                assertFalse(quoted.contains(KEY) || quoted.contains(KEY.substring(8)), "$id: the key is in $quoted")
                assertTrue(quoted.startsWith(case.text("starts_with")), "$id: $quoted")
            }
        }
        assertTrue(error.message.orEmpty().contains("(request id $quoted)"), "$id: ${error.message}")
    }

    @TestFactory
    fun b200_b206_every_error_after_a_request_carries_its_request_id(): List<DynamicTest> =
        file["cases"]!!.jsonArray.map { it.jsonObject }.map { case -> dynamicTest(case.text("id")) { run(case) } }

    @Test
    fun b205_errors_before_sending_carry_no_request_id() {
        sandbox.reset()
        val invalid = assertThrows<SikaException.InvalidInput> { runBlocking { sandbox.client().use { it.verifyTransaction("") } } }
        assertNull(invalid.requestId)
        assertTrue(sandbox.requests().isEmpty())
    }
}
