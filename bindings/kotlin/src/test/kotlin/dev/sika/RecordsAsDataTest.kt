package dev.sika

import com.fasterxml.jackson.annotation.JsonTypeInfo
import com.fasterxml.jackson.databind.JsonMappingException
import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.annotation.JsonDeserialize
import com.fasterxml.jackson.databind.annotation.JsonSerialize
import com.fasterxml.jackson.databind.jsontype.BasicPolymorphicTypeValidator
import com.fasterxml.jackson.module.kotlin.jacksonObjectMapper
import com.fasterxml.jackson.module.kotlin.readValue
import dev.sika.serialization.SikaSerializers
import dev.sika.serialization.TransactionSerializer
import java.io.File
import java.math.BigDecimal
import java.time.Instant
import java.util.concurrent.TimeUnit
import kotlinx.serialization.Contextual
import kotlinx.serialization.KSerializer
import kotlinx.serialization.Serializable
import kotlinx.serialization.SerializationException
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.serializer
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/** A merchant's own stored order, holding SDK values, as a Kotlin service would write it. */
data class StoredOrder(val orderId: String, val transaction: Transaction, val status: TransactionStatus)

// README: records-as-json class start
@Serializable
data class PaidOrder(val orderId: String, @Serializable(with = TransactionSerializer::class) val transaction: Transaction)
// README: records-as-json class end

/** The same, for kotlinx.serialization through `SikaSerializers.module`: each SDK field `@Contextual`. */
@Serializable
data class CachedOrder(
    val orderId: String,
    @Contextual val transaction: Transaction,
    @Contextual val status: TransactionStatus,
    @Contextual val bank: Bank? = null,
)

/** A `Json` that finds the SDK's serializers by type (ADR 0069). */
val sikaJson = Json { serializersModule = SikaSerializers.module }

/** The SDK's kotlinx serializer of [type], found in [SikaSerializers.module]. */
@Suppress("UNCHECKED_CAST")
fun kotlinxSerializer(type: Class<*>): KSerializer<Any> =
    checkNotNull(SikaSerializers.module.getContextual(type.kotlin)) { "${type.name} has no kotlinx serializer" } as KSerializer<Any>

/**
 * B40: records and the text enums are data for Jackson and kotlinx.serialization, through the
 * core's `toJson()` and `*FromJson()` (ADR 0017); printing masks the customer.
 */
class RecordsAsDataTest {
    /** The seeded transaction as the service sends it, `100.10` with its scale. */
    private val seeded: Transaction = decodeTransactionResponse(
        200,
        """{"status":true,"message":"ok","data":${transactionObject("ORDER-1", "successful", "100.10")}}""".toByteArray(),
    )

    private val prettyJson = Json(sikaJson) { prettyPrint = true }

    private fun fixture(name: String) = File(FIXTURES, "responses/$name").readBytes()

    /** One value of every record that has serializers, from the fixtures where they come from the service. */
    private val samples: List<Any> by lazy {
        val verified = decodeTransactionResponse(200, fixture("verify_successful.json"))
        listOf(
            seeded,
            verified,
            verified.customer!!,
            verified.customFields.single(),
            decodeBanksResponse(200, fixture("banks_ng.json")).first(),
            decodeProvidersResponse(200, fixture("providers_gh.json")).first(),
            decodeChargeResponse(200, fixture("charge_accepted.json")),
            charge("ORDER-2", amount = "20.50"),
            countries().first(),
            ExpectedPayment(BigDecimal("100.10"), "GHS"),
            parseWebhookEvent("""{"event":"charge.success","data":{"reference":"ORDER-1"}}""".toByteArray()),
            Claim("ORDER-1", "token-1", 2L, Instant.parse("2024-05-01T12:05:00.123Z")),
            ledgerEvent,
            PaymentRecord(
                "ORDER-1", ExpectedPayment(BigDecimal("100.10"), "GHS"), Instant.parse("2024-05-01T12:00:00Z"),
                "successful", Instant.parse("2024-05-01T12:01:00Z"), 1L, Instant.parse("2024-05-01T12:06:00Z"), null,
                listOf(ledgerEvent),
            ),
            LedgerOptions(leaseMs = 60_000L, schema = "shop"),
            ReconcileOptions(olderThanMs = 300_000L, limit = 500L),
        )
    }

    private val ledgerEvent = PaymentEvent(
        Instant.parse("2024-05-01T12:01:00.5Z"), EventSource.WEBHOOK, EventKind.FULFIL, "successful", "claim 1",
    )

    @Test
    fun b40JacksonWritesTheServiceTextsTheExactAmountAndIsoTimes() {
        val mapper = ObjectMapper()
        val text = mapper.writeValueAsString(seeded)
        val json = mapper.readTree(text)
        assertEquals("successful", json["status"].textValue())
        assertEquals("mobile_money", json["payment_type"].textValue())
        assertTrue(json["amount"].isTextual, "an exact decimal string, not a float")
        assertEquals("100.10", json["amount"].textValue(), "the scale kept")
        assertEquals("2024-05-01T12:00:00.123Z", json["created_at"].textValue())
        assertEquals("2024-04-01T09:00:00.000Z", json["customer"]["created_at"].textValue())
        assertEquals(mapper.readTree(seeded.toJson()), json, "the core's JSON, not a second mapping")
        val back = mapper.readValue(text, Transaction::class.java)
        assertEquals(seeded, back)
        assertEquals("100.10", back.amount.toPlainString())
    }

    @Test
    fun b40EveryRecordRoundTripsThroughJacksonAndKotlinx() {
        val mapper = ObjectMapper()
        for (record in samples) {
            val jackson = mapper.writeValueAsString(record)
            assertEquals(mapper.readTree(recordJson(record)), mapper.readTree(jackson), record.javaClass.simpleName)
            assertEquals(record, mapper.readValue(jackson, record.javaClass), record.javaClass.simpleName)
            val serializer = kotlinxSerializer(record.javaClass)
            val kotlinx = Json.encodeToString(serializer, record)
            assertEquals(Json.parseToJsonElement(recordJson(record)), Json.parseToJsonElement(kotlinx))
            assertEquals(record, Json.decodeFromString(serializer, kotlinx), record.javaClass.simpleName)
        }
    }

    @Test
    fun b40AMerchantDtoHoldsATransactionThroughJackson() {
        val mapper = jacksonObjectMapper()
        val order = StoredOrder("A-1", seeded, TransactionStatus.Unknown("success"))
        val text = mapper.writeValueAsString(order)
        val json = mapper.readTree(text)
        assertEquals("successful", json["transaction"]["status"].textValue())
        assertEquals("100.10", json["transaction"]["amount"].textValue())
        assertEquals("success", json["status"].textValue())
        val back = mapper.readValue<StoredOrder>(text)
        assertEquals(order, back)
        assertEquals(TransactionStatus.Unknown("success"), back.status, "`success` read back is never paid")
    }

    /** Type ids, as Spring's Redis cache (`GenericJackson2JsonRedisSerializer`) writes them. */
    @Test
    fun b40JacksonWithTypeIdsRoundTripsRecordsAndEnums() {
        val types = BasicPolymorphicTypeValidator.builder().allowIfBaseType(Any::class.java).build()
        val mapper = jacksonObjectMapper()
            .activateDefaultTyping(types, ObjectMapper.DefaultTyping.EVERYTHING, JsonTypeInfo.As.PROPERTY)
        for (value in samples + listOf(TransactionStatus.Unknown("success"), PaymentType.MobileMoney, BankAccountType.Nuban)) {
            val text = mapper.writeValueAsString(value)
            assertTrue(text.contains(value.javaClass.name), text)
            assertEquals(value, mapper.readValue(text, Any::class.java), text)
        }
        val text = mapper.writeValueAsString(seeded)
        val tree = ObjectMapper().readTree(text)
        assertEquals(listOf("dev.sika.Transaction", "100.10", "successful"), listOf("@class", "amount", "status").map { tree[it].textValue() })
    }

    @Test
    fun b40AMerchantDtoHoldsATransactionThroughKotlinx() {
        val order = CachedOrder("A-1", seeded, TransactionStatus.Pending, decodeBanksResponse(200, fixture("banks_ng.json")).first())
        val text = sikaJson.encodeToString(order)
        val json = Json.parseToJsonElement(text).jsonObject
        assertEquals(JsonPrimitive("100.10"), json["transaction"]!!.jsonObject["amount"])
        assertEquals("successful", json["transaction"]!!.jsonObject["status"]!!.jsonPrimitive.content)
        assertEquals("pending", json["status"]!!.jsonPrimitive.content)
        assertEquals("nuban", json["bank"]!!.jsonObject["type"]!!.jsonPrimitive.content)
        assertEquals(order, sikaJson.decodeFromString<CachedOrder>(text))
        val pretty = prettyJson.encodeToString(seeded)
        assertEquals(seeded, sikaJson.decodeFromString<Transaction>(pretty))
        assertEquals(Json.parseToJsonElement(seeded.toJson()), Json.parseToJsonElement(sikaJson.encodeToString(seeded)))
        assertEquals(seeded, Json.decodeFromString(TransactionSerializer, Json.encodeToString(TransactionSerializer, seeded)))
    }

    @Test
    fun b40EnumsSerialiseAsTheirTextOnTheirOwn() {
        val mapper = ObjectMapper()
        val values = listOf<Pair<Any, String>>(
            TransactionStatus.Successful to "successful",
            TransactionStatus.Unknown("success") to "success",
            PaymentType.MobileMoney to "mobile_money",
            PaymentType.Other("ussd") to "ussd",
            BankAccountType.Nuban to "nuban",
            BankAccountType.Other("iban") to "iban",
        )
        for ((value, text) in values) {
            val declared = value.javaClass.superclass // the sealed class, as a field declares it
            assertEquals("\"$text\"", mapper.writeValueAsString(value), "$value")
            assertEquals(value, mapper.readValue("\"$text\"", declared))
            assertEquals("\"$text\"", sikaJson.encodeToString(sikaJson.serializersModule.serializer(declared), value))
            assertEquals(value, sikaJson.decodeFromString(kotlinxSerializer(declared), "\"$text\""))
        }
    }

    @Test
    fun b40AnotherTextIsTheCoresTypedErrorInsideEachLibrarysOwn() {
        val bad = seeded.toJson().replace("\"100.10\"", "\"1O0.10\"")
        val jackson = assertThrows<JsonMappingException> { ObjectMapper().readValue(bad, Transaction::class.java) }
        val cause = assertInstanceOf(SikaException.InvalidInput::class.java, jackson.cause)
        assertEquals("json", cause.field)
        val kotlinx = assertThrows<SerializationException> { Json.decodeFromString(TransactionSerializer, bad) }
        assertInstanceOf(SikaException.InvalidInput::class.java, kotlinx.cause)
        assertThrows<JsonMappingException> { ObjectMapper().readValue("[1]", Transaction::class.java) }
        assertThrows<SikaException.InvalidInput> { transactionFromJson("{}") }
    }

    /** The README's "Records as JSON" snippet is this code (checked line by line). */
    @Test
    fun b40TheReadmeSnippetRuns() {
        val transaction = seeded
        // README: records-as-json use start
        val order = PaidOrder("A-1", transaction)

        // Jackson: a plain ObjectMapper, Spring's or Ktor's (jackson-module-kotlin reads data classes)
        val mapper = jacksonObjectMapper()
        val text = mapper.writeValueAsString(order)
        // {"orderId":"A-1","transaction":{"id":7,...,"amount":"100.10",...,"status":"successful",...}}
        check(mapper.readValue<PaidOrder>(text) == order)

        // kotlinx.serialization
        val json = Json.encodeToString(order)
        check(Json.decodeFromString<PaidOrder>(json) == order)

        // Without a library: the core's text, and back
        val cached = transaction.toJson()
        check(transactionFromJson(cached) == transaction)
        // README: records-as-json use end
        assertTrue(text.contains("\"amount\":\"100.10\"") && text.contains("\"status\":\"successful\""), text)
        val readme = File("README.md").readText()
        val source = File("src/test/kotlin/dev/sika/RecordsAsDataTest.kt").readText()
        for (part in listOf("class", "use")) {
            val snippet = source.substringAfter("// README: records-as-json $part start\n")
                .substringBefore("// README: records-as-json $part end").trimIndent()
            assertTrue(snippet.lines().size >= 2 && readme.contains(snippet), "README.md lacks:\n$snippet")
        }
    }

    @Test
    fun b40ToStringMasksThePhoneAndEmail() {
        val customer = seeded.customer!!
        val request = charge("ORDER-3", phone = "+233244125678")
        for ((printed, secrets) in listOf(
            seeded.toString() to listOf(customer.phoneNumber!!, customer.email!!),
            customer.toString() to listOf(customer.phoneNumber!!, customer.email!!),
            request.toString() to listOf(request.phoneNumber, request.email),
            CachedOrder("A-1", seeded, seeded.status).toString() to listOf(customer.phoneNumber!!, customer.email!!),
        )) {
            for (secret in secrets) assertFalse(printed.contains(secret), printed)
            assertTrue(printed.contains("a***@example.com"), printed)
        }
        assertEquals("transaction ORDER-1: successful, 100.10 GHS, customer +233*******56 a***@example.com", "$seeded")
    }

    /**
     * Every exported record, read from the generated source, is serialisable by both libraries
     * and has a sample above (so it is round-tripped), or is listed here with why it is not.
     */
    @Test
    fun b40EveryExportedRecordHasBothSerializers() {
        val notData = mapOf(
            "ClientConfig" to "holds the SecretKey object: a key is never written out",
            "AwaitOptions" to "call options holding a Cancellation object",
            "LogRecord" to "the logging bridge's argument, handed to the host's logger",
            "ReconcileReport" to "a reconcile run's answer: it holds LedgerDecisions, a call's decision, not a stored value",
            "ReconciledPayment" to "an entry of a reconcile run's answer, holding a LedgerDecision",
            "ReconcileFailure" to "an entry of a reconcile run's answer (the error's text), for the job, not stored",
            "CallStart" to "the tracer bridge's argument, handed to the host's tracer (ADR 0058)",
            "TracedCall" to "the host tracer's answer to the core: a span's id and W3C context",
            "CallEnd" to "the tracer bridge's argument, handed to the host's tracer",
            "AttemptSpan" to "an entry of CallEnd, for the host's tracer",
            "EndedCall" to "a traced call's start and end, taken by the Python bridge (ADR 0059)",
        )
        val source = File(System.getProperty("sika.generated.kotlin")).readText()
        val records = Regex("""\ndata class (\w+) (@JvmOverloads constructor )?\(""").findAll(source).map { it.groupValues[1] }.toSet()
        assertTrue(records.containsAll(notData.keys) && records.size > notData.size, "records found: $records")
        val sampled = samples.map { it.javaClass.simpleName }.toSet()
        for (name in records - notData.keys) {
            val type = Class.forName("dev.sika.$name")
            assertTrue(type.isAnnotationPresent(JsonSerialize::class.java), "$name lacks its Jackson serializer")
            assertTrue(type.isAnnotationPresent(JsonDeserialize::class.java), "$name lacks its Jackson deserializer")
            assertEquals("dev.sika.$name", kotlinxSerializer(type).descriptor.serialName, "$name's kotlinx serializer")
            assertTrue(name in sampled, "$name has no sample in RecordsAsDataTest.samples")
        }
    }

    /** A merchant without Jackson or kotlinx.serialization uses the same jar unaffected. */
    @Test
    fun b40RecordsWorkWithoutTheSerializationLibraries() {
        val classPath = (System.getProperty("surefire.test.class.path") ?: System.getProperty("java.class.path"))
            .split(File.pathSeparator)
            .filterNot { "jackson" in it || "kotlinx-serialization" in it }
        assertTrue(classPath.any { "kotlin-stdlib" in it } && classPath.any { "jna" in it }, "$classPath")
        val java = File(System.getProperty("java.home"), "bin/java").path
        val process = ProcessBuilder(java, "-cp", classPath.joinToString(File.pathSeparator), NoSerializationLibraries::class.java.name)
            .redirectErrorStream(true)
            .start()
        process.outputStream.use { it.write(seeded.toJson().toByteArray()) }
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the JVM without the libraries did not finish")
        val output = process.inputStream.bufferedReader().readText()
        assertEquals(0, process.exitValue(), output)
        assertEquals("transaction ORDER-1: successful, 100.10 GHS, customer +233*******56 a***@example.com\ntrue\n", output)
    }

    private fun recordJson(record: Any): String = record.javaClass.getMethod("toJson").invoke(record) as String
}

/** Run in a JVM without Jackson and kotlinx.serialization: reads a record, prints it, writes it. */
object NoSerializationLibraries {
    @JvmStatic
    fun main(args: Array<String>) {
        val text = System.`in`.readBytes().decodeToString()
        val transaction = transactionFromJson(text)
        println(transaction)
        println(transaction.toJson() == text && transaction.status == TransactionStatus.Successful)
    }
}
