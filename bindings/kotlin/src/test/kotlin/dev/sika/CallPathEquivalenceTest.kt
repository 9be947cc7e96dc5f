package dev.sika

import com.sun.jna.Native
import java.io.File
import java.nio.ByteOrder
import java.util.concurrent.Callable
import java.util.concurrent.Executors
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * The decoders declared as UniFFI generates them: the call status a JNA `Structure`, written
 * and read by JNA around the call. The SDK's declarations take it as an address instead
 * (ADR 0031, `call_status.rs`); these are the reference it must agree with.
 */
internal object StructureStatusDecoders {
    init {
        Native.register(StructureStatusDecoders::class.java, "sika_ffi")
    }

    external fun ffi_sika_core_rustbuffer_alloc(size: Long, status: UniffiRustCallStatus): RustBuffer.ByValue
    external fun uniffi_sika_core_fn_func_decode_banks_response(httpStatus: Int, body: RustBuffer.ByValue, status: UniffiRustCallStatus): RustBuffer.ByValue
    external fun uniffi_sika_core_fn_func_decode_charge_response(httpStatus: Int, body: RustBuffer.ByValue, status: UniffiRustCallStatus): RustBuffer.ByValue
    external fun uniffi_sika_core_fn_func_decode_providers_response(httpStatus: Int, body: RustBuffer.ByValue, status: UniffiRustCallStatus): RustBuffer.ByValue
    external fun uniffi_sika_core_fn_func_decode_transaction_response(httpStatus: Int, body: RustBuffer.ByValue, status: UniffiRustCallStatus): RustBuffer.ByValue
}

/**
 * B61: the SDK's call path (a per-thread call status in native memory, ADR 0031) gives what
 * UniFFI's generated path gives, for every recorded response of tests/fixtures: the same
 * records, field for field, or the same typed error (class, message, text); from one thread
 * and from several at once. B01 (FixturesTest) checks the same decodes against expected values.
 */
class CallPathEquivalenceTest {
    private class Case(val name: String, val operation: String, val httpStatus: Int, val body: ByteArray)

    private val cases = Json.parseToJsonElement(File(FIXTURES, "cases.json").readText())
        .jsonObject["cases"]!!.jsonArray.map { it.jsonObject }
        .map { case ->
            val text = { key: String -> case[key]!!.jsonPrimitive.content }
            Case(text("name"), text("operation"), case["http_status"]!!.jsonPrimitive.int, File(FIXTURES, text("body_file")).readBytes())
        }

    /** A typed error in comparable form. */
    private data class Failure(val type: String?, val message: String?, val text: String)

    /** A decode's outcome in comparable form: the value itself, or the typed error. */
    private fun outcome(decode: () -> Any): Any = try {
        decode()
    } catch (e: SikaException) {
        Failure(e::class.qualifiedName, e.message, e.toString())
    }

    private fun sdk(case: Case): Any = outcome {
        when (case.operation) {
            "list_banks" -> decodeBanksResponse(case.httpStatus, case.body)
            "initiate_charge" -> decodeChargeResponse(case.httpStatus, case.body)
            "list_mobile_money_providers" -> decodeProvidersResponse(case.httpStatus, case.body)
            "verify_transaction" -> decodeTransactionResponse(case.httpStatus, case.body)
            else -> error("an operation this test does not know: ${case.operation}")
        }
    }

    private fun generated(case: Case): Any = outcome {
        val lib = StructureStatusDecoders
        val body = structureStatusCall { lib.ffi_sika_core_rustbuffer_alloc(FfiConverterByteArray.allocationSize(case.body).toLong(), it) }
        val bytes = body.data!!.getByteBuffer(0, body.capacity).order(ByteOrder.BIG_ENDIAN)
        FfiConverterByteArray.write(case.body, bytes)
        body.writeField("len", bytes.position().toLong())
        when (case.operation) {
            "list_banks" -> FfiConverterSequenceTypeBank.lift(structureStatusCall { lib.uniffi_sika_core_fn_func_decode_banks_response(case.httpStatus, body, it) })
            "initiate_charge" -> FfiConverterTypeChargeResponse.lift(structureStatusCall { lib.uniffi_sika_core_fn_func_decode_charge_response(case.httpStatus, body, it) })
            "list_mobile_money_providers" -> FfiConverterSequenceTypeMobileMoneyProvider.lift(structureStatusCall { lib.uniffi_sika_core_fn_func_decode_providers_response(case.httpStatus, body, it) })
            "verify_transaction" -> FfiConverterTypeTransaction.lift(structureStatusCall { lib.uniffi_sika_core_fn_func_decode_transaction_response(case.httpStatus, body, it) })
            else -> error("an operation this test does not know: ${case.operation}")
        }
    }

    /** UniFFI's generated check of a Structure status: success, a typed error, or a panic. */
    private fun structureStatusCall(call: (UniffiRustCallStatus) -> RustBuffer.ByValue): RustBuffer.ByValue {
        val status = UniffiRustCallStatus()
        val returned = call(status)
        when {
            status.isSuccess() -> return returned
            status.isError() -> throw SikaException.lift(status.error_buf)
            else -> throw InternalException("Rust call status ${status.code}")
        }
    }

    @Test
    fun testB61EveryFixtureDecodesAlikeThroughTheGeneratedCallPath() {
        assertTrue(cases.size >= 30, "the fixture set shrank: ${cases.size}")
        val errors = cases.count { generated(it) is Failure }
        assertTrue(errors >= 5, "too few error cases to compare the error path: $errors")
        for (case in cases) {
            assertEquals(generated(case), sdk(case), case.name)
        }
    }

    @Test
    fun testB61ThreadsCallingAtOnceEachGetTheirOwnStatus() {
        val expected = cases.map { generated(it) }
        val pool = Executors.newFixedThreadPool(8)
        try {
            val rounds = (1..8).map { worker ->
                pool.submit(Callable {
                    repeat(20) { round ->
                        // Each worker walks the cases from a different place, so errors and
                        // successes interleave across threads.
                        for (i in cases.indices) {
                            val index = (i + worker * 7 + round) % cases.size
                            assertEquals(expected[index], sdk(cases[index]), cases[index].name)
                        }
                    }
                })
            }
            rounds.forEach { it.get() }
        } finally {
            pool.shutdownNow()
        }
    }
}
