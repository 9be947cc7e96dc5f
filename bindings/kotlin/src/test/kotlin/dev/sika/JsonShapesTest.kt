package dev.sika

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.module.kotlin.jacksonObjectMapper
import dev.sika.serialization.PaymentCheckSerializer
import dev.sika.serialization.TransactionSerializer
import java.io.File
import kotlinx.serialization.json.Json
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

/**
 * B114: one JSON shape (ADR 0047). The `Transaction` of `tests/fixtures/json_shapes/` is written
 * as the bytes of `json_shapes/transaction.json` (the core's `toJson()`) by Jackson and
 * kotlinx.serialization, on its own and inside a merchant's class, and read back equal. B261: a
 * `PaymentCheck.NotPaid` of it is the bytes of `json_shapes/payment_check_not_paid.json`, the
 * shape Python's FastAPI writes too (ADR 0080).
 */
class JsonShapesTest {
    private val shapes = File(FIXTURES, "json_shapes")

    /** The fixture's bytes, without the file's final newline. */
    private val expected: String = File(shapes, "transaction.json").readText().removeSuffix("\n")

    private val transaction: Transaction = decodeTransactionResponse(200, File(shapes, "transaction_response.json").readBytes())

    private val notPaid = PaymentCheck.NotPaid(transaction, MerchantAction.INVESTIGATE)
    private val expectedNotPaid: String = File(shapes, "payment_check_not_paid.json").readText().removeSuffix("\n")

    @Test
    fun b114ToJsonIsTheFixtureBytes() {
        assertEquals(expected, transaction.toJson())
    }

    @Test
    fun b114JacksonWritesTheFixtureBytes() {
        assertEquals(expected, ObjectMapper().findAndRegisterModules().writeValueAsString(transaction))
        val mapper = jacksonObjectMapper().findAndRegisterModules()
        assertEquals(expected, mapper.writeValueAsString(transaction))
        val order = mapper.writeValueAsString(StoredOrder("A-1", transaction, TransactionStatus.Successful))
        assertEquals("""{"orderId":"A-1","transaction":$expected,"status":"successful"}""", order)
        assertEquals(transaction, mapper.readValue(expected, Transaction::class.java))
    }

    @Test
    fun b114KotlinxWritesTheFixtureBytes() {
        assertEquals(expected, Json.encodeToString(TransactionSerializer, transaction))
        assertEquals("""{"orderId":"A-1","transaction":$expected}""", Json.encodeToString(PaidOrder("A-1", transaction)))
        assertEquals(transaction, Json.decodeFromString(TransactionSerializer, expected))
    }

    @Test
    fun b261ADecisionIsTheFixtureBytesEverywhere() {
        assertEquals(expectedNotPaid, notPaid.toJson())
        val mapper = jacksonObjectMapper().findAndRegisterModules()
        assertEquals(expectedNotPaid, mapper.writeValueAsString(notPaid))
        assertEquals(notPaid, mapper.readValue(expectedNotPaid, PaymentCheck::class.java))
        assertEquals(expectedNotPaid, Json.encodeToString(PaymentCheckSerializer, notPaid))
        assertEquals(notPaid, Json.decodeFromString(PaymentCheckSerializer, expectedNotPaid))
        assertEquals(notPaid, paymentCheckFromJson(expectedNotPaid))
    }
}
