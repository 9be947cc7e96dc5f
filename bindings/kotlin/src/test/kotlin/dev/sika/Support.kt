package dev.sika

import java.io.File
import java.math.BigDecimal
import kotlinx.coroutines.delay
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive

/** The shared test data, tests/fixtures (`$SIKA_FIXTURES_DIR`, set by scripts/test-kotlin). */
val FIXTURES: File = File(
    System.getenv("SIKA_FIXTURES_DIR") ?: System.getProperty("sika.fixtures.dir") ?: "../../tests/fixtures",
)

/**
 * The `setup` of one scenario of tests/fixtures/faults.json (faults that are not one verify
 * call): every language's test of that behaviour takes its parameters from there.
 */
fun scenario(id: String): JsonObject =
    Json.parseToJsonElement(File(FIXTURES, "faults.json").readText()).jsonObject["scenarios"]!!.jsonArray
        .map { it.jsonObject }
        .single { it["id"]!!.jsonPrimitive.content == id }["setup"]!!.jsonObject

/**
 * The cases of a behaviour's scenario file, tests/fixtures/scenarios/[name] (ADR 0037): every
 * language's test of that behaviour runs each of them, so a new case is one row there.
 */
fun scenarioCases(name: String): List<JsonObject> =
    Json.parseToJsonElement(File(FIXTURES, "scenarios/$name").readText()).jsonObject["cases"]!!.jsonArray
        .map { it.jsonObject }
        .also { check(it.isNotEmpty()) { "scenarios/$name has no cases" } }

/** tests/fixtures/seeded_transaction.json: the transaction every suite seeds, and what it decodes to. */
private val seededTransaction = Json.parseToJsonElement(File(FIXTURES, "seeded_transaction.json").readText()).jsonObject

/** What the seeded transaction decodes to, as the file states it (`created_at_epoch_ms`, `gateway_ref`, ...). */
val SEEDED_EXPECTED: JsonObject = seededTransaction["expected"]!!.jsonObject

/**
 * The seeded transaction object as the service sends it, as JSON text: [reference] and
 * [status] as JSON strings, [amount] as the number text given (`100.10` stays `100.10`).
 */
fun transactionObject(reference: String, status: String, amount: String): String {
    val placeholders = seededTransaction["placeholders"]!!.jsonObject
    fun placeholder(name: String) = placeholders[name]!!.jsonPrimitive.content
    return seededTransaction["object"]!!.toString()
        .replace(placeholder("reference"), JsonPrimitive(reference).toString())
        .replace(placeholder("status"), JsonPrimitive(status).toString())
        .replace(placeholder("amount"), amount)
}

fun charge(reference: String, phone: String = "+233244125678", amount: String = "20") = ChargeRequest(
    amount = BigDecimal(amount),
    email = "ama@example.com",
    phoneNumber = phone,
    reference = reference,
    currency = "GHS",
    provider = "MTN",
    callbackUrl = "https://shop.example.com/return",
)

/** Verifies until [done] holds or [limitMs] passes; returns the last transaction. */
suspend fun Client.verifyUntil(reference: String, limitMs: Long = 5_000, done: (Transaction) -> Boolean): Transaction {
    val deadline = System.currentTimeMillis() + limitMs
    while (true) {
        val transaction = verifyTransaction(reference)
        if (done(transaction) || System.currentTimeMillis() > deadline) return transaction
        delay(50)
    }
}

/** A call's outcome as the shared fixtures name it: the error's kind (`Timeout`, ...) or `Ok`. */
fun outcomeKind(result: Result<*>): String = result.fold(
    onSuccess = { "Ok" },
    onFailure = { error -> if (error is SikaException) error::class.simpleName!! else throw error },
)

/** The verify requests this sandbox has received; it logs a request before applying any fault. */
fun Sandbox.verifies(): Int =
    requests().count { it["path"]!!.jsonPrimitive.content.startsWith("/transaction/verify") }

/** Polls [read] every 50 ms until [done] holds or [limitMs] passes; returns the last value read. */
suspend fun <T> pollUntil(limitMs: Long, read: () -> T, done: (T) -> Boolean): T {
    val deadline = System.nanoTime() + limitMs * 1_000_000
    while (true) {
        val value = read()
        if (done(value) || System.nanoTime() > deadline) return value
        delay(50)
    }
}

/** Every class compiled from package dev.sika (target/classes), loaded without initializing it. */
fun compiledClasses(): List<Class<*>> {
    val root = File(SikaException::class.java.protectionDomain.codeSource.location.toURI())
    val loader = SikaException::class.java.classLoader
    return File(root, "dev/sika").walkTopDown()
        .filter { it.isFile && it.extension == "class" }
        .map { file -> file.relativeTo(root).path.removeSuffix(".class").replace(File.separatorChar, '.') }
        .map { name -> Class.forName(name, false, loader) }
        .toList()
}

/** Skips a test on a JDK without virtual threads (the newest-jdk Surefire run has them). */
fun needsVirtualThreads() =
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Runtime.version().feature() >= 21,
        "virtual threads need JDK 21+ (the newest-jdk profile runs this)",
    )

/** `Thread.ofVirtual().unstarted(task)`, through reflection: the build targets JDK 17. */
fun virtualThread(task: Runnable): Thread {
    val builder = Thread::class.java.getMethod("ofVirtual").invoke(null)
    return Class.forName("java.lang.Thread\$Builder").getMethod("unstarted", Runnable::class.java)
        .invoke(builder, task) as Thread
}
