// The Kotlin benchmark of scripts/bench. Prints `RESULT<TAB>group<TAB>contender<TAB>unit<TAB>value`
// lines; every comparison is interleaved (A, B, C, A, B, C, ...). The key comes from
// SIKA_BENCH_KEY and is never printed.
//   Bench URL REFERENCE ROUNDS CALLS RUST_BENCH_BINARY
// With -Dsika.bench.wakes=detached it measures the SDK's rows only, each wake's thread attached
// to the VM and detached again (JNA's default, before ADR 0068), under names saying so.
package dev.sika.bench

import com.fasterxml.jackson.databind.DeserializationFeature
import com.fasterxml.jackson.databind.ObjectMapper
import com.sun.jna.CallbackThreadInitializer
import com.sun.jna.Native
import dev.sika.BlockingClient
import dev.sika.Client
import dev.sika.ClientConfig
import dev.sika.SecretKey
import dev.sika.TransactionStatus
import dev.sika.uniffiRustFutureContinuationCallbackImpl
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.future.await
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import java.math.BigDecimal
import java.net.URI
import java.net.URLEncoder
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration

private val key: String = System.getenv("SIKA_BENCH_KEY") ?: error("SIKA_BENCH_KEY is not set")

fun emit(group: String, contender: String, unit: String, value: Double) {
    println("RESULT\t$group\t$contender\t$unit\t${"%.6g".format(value)}")
    System.out.flush()
}

/** What a merchant writes today: java.net.http plus Jackson, the same work as verify. */
class JavaHttpVerifier(private val baseUrl: String) {
    private val http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()
    private val json = ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)

    private fun request(reference: String): HttpRequest =
        HttpRequest.newBuilder(URI.create("$baseUrl/transaction/verify/" + URLEncoder.encode(reference, Charsets.UTF_8)))
            .header("Authorization", "Bearer $key").header("Accept", "application/json")
            .timeout(Duration.ofSeconds(30)).GET().build()

    private fun checked(status: Int, body: ByteArray, reference: String): Pair<String, BigDecimal> {
        val envelope = json.readTree(body)
        check(status == 200 && envelope.path("status").asBoolean(false)) { "HTTP $status" }
        val data = envelope.path("data")
        check(data.path("tx_ref").asText() == reference)
        return data.path("status").asText() to data.path("amount").decimalValue()
    }

    fun verify(reference: String): Pair<String, BigDecimal> {
        val response = http.send(request(reference), HttpResponse.BodyHandlers.ofByteArray())
        return checked(response.statusCode(), response.body(), reference)
    }

    suspend fun verifyAsync(reference: String): Pair<String, BigDecimal> {
        val response = http.sendAsync(request(reference), HttpResponse.BodyHandlers.ofByteArray()).await()
        return checked(response.statusCode(), response.body(), reference)
    }
}

fun rate(calls: Int, call: () -> Unit): Double {
    val started = System.nanoTime()
    repeat(calls) { call() }
    return calls / ((System.nanoTime() - started) / 1e9)
}

fun asyncRate(calls: Int, inFlight: Int, call: suspend () -> Unit): Double {
    val perWorker = calls / inFlight
    val started = System.nanoTime()
    runBlocking(Dispatchers.Default) {
        repeat(inFlight) { launch { repeat(perWorker) { call() } } }
    }
    return perWorker * inFlight / ((System.nanoTime() - started) / 1e9)
}

fun rustRate(binary: String, url: String, reference: String, calls: Int): Double {
    val process = ProcessBuilder(binary, "raw", url, reference, calls.toString(), "1")
        .redirectError(ProcessBuilder.Redirect.INHERIT).start()
    val out = process.inputStream.bufferedReader().readText()
    check(process.waitFor() == 0) { "the Rust bench failed" }
    return out.trim().lines().last().toDouble()
}

fun main(args: Array<String>) {
    val (url, reference) = args[0] to args[1]
    val rounds = args[2].toInt()
    val calls = args[3].toInt()
    val rustBinary = args[4]

    val blocking = BlockingClient(ClientConfig(SecretKey(key), url))
    val client = Client(ClientConfig(SecretKey(key), url))
    // The library is loaded (JvmHost kept waking threads attached); no call has woken one yet.
    val detachedWakes = System.getProperty("sika.bench.wakes") == "detached"
    val variant = if (detachedWakes) " (JNA's default: each wake attaches and detaches)" else ""
    if (detachedWakes) {
        Native.setCallbackThreadInitializer(uniffiRustFutureContinuationCallbackImpl, CallbackThreadInitializer(true, true))
    }
    val java = JavaHttpVerifier(url)
    val sequential = linkedMapOf<String, () -> Unit>(
        "sika BlockingClient$variant" to {
            val transaction = blocking.verifyTransaction(reference)
            check(transaction.status == TransactionStatus.Successful && transaction.txRef == reference)
        },
    )
    // What Java code without BlockingClient writes: the CompletableFuture twin, joined.
    sequential["sika Client verifyTransactionAsync(...).join()$variant"] = {
        check(client.verifyTransactionAsync(reference).join().txRef == reference)
    }
    if (!detachedWakes) sequential["java.net.http + Jackson"] = { java.verify(reference) }
    // Warm-up: the JIT compiles both paths before anything is timed.
    repeat(3) { sequential.values.forEach { call -> rate(1000) { call() } } }
    System.err.println("kotlin: sequential verify, $rounds rounds of $calls calls")
    repeat(rounds) {
        sequential.forEach { (name, call) -> emit("kt_verify_sequential", name, "calls/s", rate(calls) { call() }) }
        if (!detachedWakes) {
            emit("kt_verify_sequential", "rust reqwest+serde (raw)", "calls/s", rustRate(rustBinary, url, reference, calls))
        }
    }

    val concurrent = linkedMapOf<String, suspend () -> Unit>(
        "sika Client (suspend)$variant" to {
            val transaction = client.verifyTransaction(reference)
            check(transaction.status == TransactionStatus.Successful)
        },
    )
    if (!detachedWakes) concurrent["java.net.http sendAsync + Jackson"] = { java.verifyAsync(reference) }
    repeat(2) { concurrent.values.forEach { call -> asyncRate(2000, 100, call) } }
    System.err.println("kotlin: 100 in flight, $rounds rounds of ${calls * 4} calls")
    repeat(rounds) {
        concurrent.forEach { (name, call) -> emit("kt_verify_100_in_flight", name, "calls/s", asyncRate(calls * 4, 100, call)) }
    }

    if (detachedWakes) {
        blocking.close()
        client.close()
        return
    }
    System.err.println("kotlin: FFI calls without I/O")
    val status = TransactionStatus.Pending
    var finals = 0
    repeat(3) { rate(20_000) { if (status.isFinal()) finals++ } }
    repeat(rounds) {
        val perSecond = rate(20_000) { if (status.isFinal()) finals++ }
        emit("kt_ffi_call", "isFinal (FFI)", "us/call", 1e6 / perSecond)
    }
    check(finals == 0)
    blocking.close()
    client.close()
}
