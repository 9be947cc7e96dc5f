// Where a Kotlin call's time goes, without I/O (ADR 0031): the SDK's call path against the
// call path UniFFI generates (a JNA Structure per call status), and the parts of a call on
// their own. Compiled with the generated bindings, so it reaches their internal declarations.
// Prints the bench's RESULT lines, in interleaved rounds; run by hand:
//   java -cp "$(cat bench/kotlin/target/classpath.txt):bench/kotlin/target/sika-bench-0.1.0.jar" \
//     dev.sika.bench.CallCostKt tests/fixtures/responses/verify_successful.json 7
package dev.sika.bench

import com.sun.jna.Native
import dev.sika.FfiConverterTypeTransaction
import dev.sika.FfiConverterTypeTransactionStatus
import dev.sika.IntegrityCheckingUniffiLib
import dev.sika.RustBuffer
import dev.sika.TransactionStatus
import dev.sika.UniffiRustCallStatus
import dev.sika.decodeTransactionResponse
import java.io.File
import java.nio.ByteBuffer

/** The two functions of a no-I/O call, declared as UniFFI generates them (status by Structure). */
internal object StructureStatusLib {
    init {
        Native.register(StructureStatusLib::class.java, "sika_ffi")
    }

    external fun ffi_sika_core_rustbuffer_alloc(size: Long, status: UniffiRustCallStatus): RustBuffer.ByValue
    external fun uniffi_sika_core_fn_method_transactionstatus_is_final(ptr: RustBuffer.ByValue, status: UniffiRustCallStatus): Byte
}

/** `isFinal` exactly as generated before ADR 0031: a fresh status Structure for each Rust call. */
private fun structureStatusIsFinal(status: TransactionStatus): Boolean {
    val size = FfiConverterTypeTransactionStatus.allocationSize(status)
    val allocStatus = UniffiRustCallStatus()
    val buffer = StructureStatusLib.ffi_sika_core_rustbuffer_alloc(size.toLong(), allocStatus)
    check(allocStatus.isSuccess()) { "alloc: status ${allocStatus.code}" }
    val bytes = buffer.data!!.getByteBuffer(0, buffer.capacity).order(java.nio.ByteOrder.BIG_ENDIAN)
    FfiConverterTypeTransactionStatus.write(status, bytes)
    buffer.writeField("len", bytes.position().toLong())
    val callStatus = UniffiRustCallStatus()
    val result = StructureStatusLib.uniffi_sika_core_fn_method_transactionstatus_is_final(buffer, callStatus)
    check(callStatus.isSuccess()) { "is_final: status ${callStatus.code}: " + dev.sika.FfiConverterString.lift(callStatus.error_buf) }
    return result.toInt() != 0
}

private fun usPerCall(calls: Int, call: () -> Unit): Double {
    val started = System.nanoTime()
    repeat(calls) { call() }
    return (System.nanoTime() - started) / 1e3 / calls
}

fun main(args: Array<String>) {
    val body = File(args[0]).readBytes()
    val rounds = args[1].toInt()
    val calls = 20_000
    val status = TransactionStatus.Pending
    // The returned record's bytes, as Rust hands them over, for the lift alone.
    val transaction = decodeTransactionResponse(200, body)
    val lowered = FfiConverterTypeTransaction.lower(transaction)
    val recordBytes = ByteArray(lowered.len.toInt()).also { lowered.data!!.read(0, it, 0, it.size) }
    RustBuffer.free(lowered)
    var sink = 0L

    val parts = linkedMapOf<String, () -> Unit>(
        "isFinal (SDK)" to { if (status.isFinal()) sink++ },
        "isFinal, status as a JNA Structure (as generated)" to { if (structureStatusIsFinal(status)) sink++ },
        "a UniffiRustCallStatus Structure, built only" to { sink += UniffiRustCallStatus().size() },
        "a JNA direct call without arguments (checksum)" to { sink += IntegrityCheckingUniffiLib.uniffi_sika_core_checksum_func_countries() },
        "lift of a full Transaction from its bytes (Kotlin only)" to {
            sink += FfiConverterTypeTransaction.read(ByteBuffer.wrap(recordBytes)).currency.length
        },
        "decodeTransactionResponse (Rust decode + lift)" to { sink += decodeTransactionResponse(200, body).currency.length },
    )
    // Warm-up: the JIT compiles every path before anything is timed.
    repeat(3) { parts.values.forEach { usPerCall(calls, it) } }
    repeat(rounds) {
        parts.forEach { (name, call) -> emit("kt_call_cost", name, "us/call", usPerCall(calls, call)) }
    }
    System.err.println("(sink $sink)")
}
