package dev.sika

import com.fasterxml.jackson.annotation.JsonTypeInfo
import com.fasterxml.jackson.databind.JsonMappingException
import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext
import com.fasterxml.jackson.databind.jsontype.BasicPolymorphicTypeValidator
import com.fasterxml.jackson.module.kotlin.jacksonObjectMapper
import com.fasterxml.jackson.module.kotlin.readValue
import dev.sika.serialization.RecordJacksonDeserializer
import dev.sika.serialization.RecordJacksonSerializer
import dev.sika.serialization.SikaJacksonModule
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

/** B261: a merchant's record of its decisions, through Jackson or `SikaSerializers.module`. */
@Serializable
data class DecidedOrder(val orderId: String, @Contextual val check: PaymentCheck, @Contextual val decision: LedgerDecision)

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

/** The SDK's kotlinx serializer of [type] (a decision's variant: of its sealed class), found in [SikaSerializers.module]. */
@Suppress("UNCHECKED_CAST")
fun kotlinxSerializer(type: Class<*>): KSerializer<Any> =
    checkNotNull(generateSequence(type) { it.superclass }.firstNotNullOfOrNull { SikaSerializers.module.getContextual(it.kotlin) }) {
        "${type.name} has no kotlinx serializer"
    } as KSerializer<Any>

/** A Jackson mapper with the modules of the classpath: Sika's (ADR 0079) and jackson-module-kotlin. */
fun sikaMapper(): ObjectMapper = ObjectMapper().findAndRegisterModules()

/**
 * B40: records and the text enums are data for Jackson and kotlinx.serialization, through the
 * core's `toJson()` and `*FromJson()` (Jackson's through `SikaJacksonModule`, ADR 0079); printing
 * masks the customer. B261: so are the decisions, their kind kept (ADR 0080).
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
            ReadyPayment(verified.txRef, verified),
            ledgerEvent,
            PaymentRecord(
                "ORDER-1", ExpectedPayment(BigDecimal("100.10"), "GHS"), Instant.parse("2024-05-01T12:00:00Z"),
                "successful", Instant.parse("2024-05-01T12:01:00Z"), 1L, Instant.parse("2024-05-01T12:06:00Z"), null,
                listOf(ledgerEvent),
            ),
            LedgerOptions(leaseMs = 60_000L, schema = "shop"),
            ReconcileOptions(olderThanMs = 300_000L, limit = 500L),
        ) + decisions
    }

    /** B261: every variant of every decision, each holding what the core gives it. */
    private val decisions: List<Any> by lazy {
        val claim = Claim("ORDER-1", "token-1", 1L, Instant.parse("2024-05-01T12:05:00.123Z"))
        listOf(
            PaymentCheck.Confirmed(seeded),
            PaymentCheck.NotYet(seeded),
            PaymentCheck.NotPaid(seeded, MerchantAction.INVESTIGATE),
            PaymentCheck.Mismatch(seeded, "amount", "100", "100.10"),
            WebhookDecision.Fulfil(seeded),
            WebhookDecision.Investigate(seeded, "short"),
            WebhookDecision.Ignore("another event"),
            WebhookDecision.RetryLater("pending"),
            WebhookDecision.Reject("no reference"),
            LedgerDecision.Fulfil(claim, seeded),
            LedgerDecision.AlreadyFulfilled("ORDER-1", Instant.parse("2024-05-01T12:00:00Z")),
            LedgerDecision.InProgress("ORDER-1", Instant.parse("2024-05-01T12:05:00.000001Z")),
            LedgerDecision.Decided(WebhookDecision.Reject("no reference")),
        )
    }

    private val ledgerEvent = PaymentEvent(
        Instant.parse("2024-05-01T12:01:00.5Z"), EventSource.WEBHOOK, EventKind.FULFIL, "successful", "claim 1",
    )

    @Test
    fun b40JacksonWritesTheServiceTextsTheExactAmountAndIsoTimes() {
        val mapper = sikaMapper()
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
        val mapper = sikaMapper()
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
        val mapper = jacksonObjectMapper().findAndRegisterModules()
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
        val mapper = jacksonObjectMapper().findAndRegisterModules()
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
        val mapper = sikaMapper()
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
        val jackson = assertThrows<JsonMappingException> { sikaMapper().readValue(bad, Transaction::class.java) }
        val cause = assertInstanceOf(SikaException.InvalidInput::class.java, jackson.cause)
        assertEquals("json", cause.field)
        val kotlinx = assertThrows<SerializationException> { Json.decodeFromString(TransactionSerializer, bad) }
        assertInstanceOf(SikaException.InvalidInput::class.java, kotlinx.cause)
        assertThrows<JsonMappingException> { sikaMapper().readValue("[1]", Transaction::class.java) }
        assertThrows<SikaException.InvalidInput> { transactionFromJson("{}") }
    }

    /** The README's "Records as JSON" snippet is this code (checked line by line). */
    @Test
    fun b40TheReadmeSnippetRuns() {
        val transaction = seeded
        // README: records-as-json use start
        val order = PaidOrder("A-1", transaction)

        // Jackson: Sika's module, found as jackson-datatype modules are (jackson-module-kotlin reads data classes)
        val mapper = jacksonObjectMapper().findAndRegisterModules()
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
        val mapper = sikaMapper()
        val deserializers = (mapper.deserializationContext as DefaultDeserializationContext).createDummyInstance(mapper.deserializationConfig)
        for (name in records - notData.keys) {
            val type = Class.forName("dev.sika.$name")
            assertInstanceOf(RecordJacksonSerializer::class.java, mapper.serializerProviderInstance.findValueSerializer(type), name)
            assertInstanceOf(RecordJacksonDeserializer::class.java, deserializers.findRootValueDeserializer(mapper.constructType(type)), name)
            assertEquals("dev.sika.$name", kotlinxSerializer(type).descriptor.serialName, "$name's kotlinx serializer")
            assertTrue(name in sampled, "$name has no sample in RecordsAsDataTest.samples")
        }
        // B261: every decision (an enum with data and `toJson()`), each variant sampled.
        for (name in listOf("PaymentCheck", "WebhookDecision", "LedgerDecision")) {
            val type = Class.forName("dev.sika.$name")
            assertInstanceOf(RecordJacksonSerializer::class.java, mapper.serializerProviderInstance.findValueSerializer(type), name)
            assertEquals("dev.sika.$name", kotlinxSerializer(type).descriptor.serialName, "$name's kotlinx serializer")
            val variants = type.declaredClasses.filter { type.isAssignableFrom(it) }.map { it.simpleName }.toSet()
            assertEquals(variants, decisions.filter { type.isInstance(it) }.map { it.javaClass.simpleName }.toSet(), name)
        }
    }

    /**
     * B260: no generated class carries a Jackson or kotlinx annotation (javac of a project without
     * them warns for each, ADR 0079): Jackson's serializers are `SikaJacksonModule`, which the
     * jar lists for `ServiceLoader`, so `findAndRegisterModules()` registers it (once).
     */
    @Test
    fun b260TheSerializersAreAModuleFoundByServiceLoaderAndNoClassIsAnnotated() {
        val source = File(System.getProperty("sika.generated.kotlin")).readText()
        assertFalse(source.contains("com.fasterxml.jackson") || source.contains("kotlinx.serialization"), "the generated file names a serialization library")
        for (type in samples.map { it.javaClass } + listOf(TransactionStatus::class.java, PaymentType::class.java, BankAccountType::class.java)) {
            for (declared in listOf(type, type.superclass)) {
                val foreign = declared.annotations.map { it.annotationClass.java.name }.filter { it.startsWith("com.fasterxml") || it.startsWith("kotlinx") }
                assertEquals(emptyList<String>(), foreign, declared.name)
            }
        }
        val found: List<Class<*>> = ObjectMapper.findModules().map { it.javaClass }
        assertTrue(found.any { it == SikaJacksonModule::class.java }, "ServiceLoader found $found")
        val mapper = sikaMapper().registerModule(SikaJacksonModule())
        assertEquals(1, mapper.registeredModuleIds.count { it == SikaJacksonModule::class.java.name }, "${mapper.registeredModuleIds}")
        assertEquals(seeded.toJson(), mapper.writeValueAsString(seeded))
        assertEquals(seeded.toJson(), ObjectMapper().registerModule(SikaJacksonModule()).writeValueAsString(seeded))
        // Without the module Jackson has no serializer of Sika's types: a record is refused (its
        // times need jsr310), a status on its own is a bean of Jackson's making, not its text.
        assertThrows<JsonMappingException> { ObjectMapper().writeValueAsString(seeded) }
        val bean = ObjectMapper().writeValueAsString(TransactionStatus.Successful)
        assertFalse(bean == "\"successful\"", bean)
    }

    /**
     * B261: a decision written by Jackson or kotlinx is the core's `toJson()` (its kind under
     * `outcome`), on its own and inside a merchant's class, and reads back as the same variant:
     * `Confirmed` and `NotYet` of the same transaction are told apart.
     */
    @Test
    fun b261DecisionsKeepTheirKindThroughJacksonAndKotlinx() {
        val mapper = jacksonObjectMapper().findAndRegisterModules()
        val outcomes = mutableListOf<String>()
        for (decision in decisions) {
            val name = decision.javaClass.name
            val declared = decision.javaClass.superclass
            val jackson = mapper.writeValueAsString(decision)
            assertEquals(recordJson(decision), jackson, name)
            outcomes += mapper.readTree(jackson)["outcome"].textValue()
            assertEquals(decision, mapper.readValue(jackson, declared), name)
            assertEquals(decision, mapper.readValue(jackson, decision.javaClass), name)
            val serializer = kotlinxSerializer(declared)
            val kotlinx = Json.encodeToString(serializer, decision)
            assertEquals(recordJson(decision), kotlinx, name)
            assertEquals(decision, Json.decodeFromString(serializer, kotlinx), name)
        }
        assertEquals(
            listOf(
                "CONFIRMED", "NOT_YET", "NOT_PAID", "MISMATCH", "FULFIL", "INVESTIGATE", "IGNORE", "RETRY_LATER", "REJECT",
                "FULFIL", "ALREADY_FULFILLED", "IN_PROGRESS", "DECIDED",
            ),
            outcomes,
        )
        val confirmed = mapper.writeValueAsString(PaymentCheck.Confirmed(seeded))
        assertFalse(confirmed == mapper.writeValueAsString(PaymentCheck.NotYet(seeded)), confirmed)
        assertEquals(PaymentCheck.NotYet(seeded), mapper.readValue(mapper.writeValueAsString(PaymentCheck.NotYet(seeded)), PaymentCheck::class.java))
        // Inside a merchant's class, and with type ids (a cache's default typing).
        val held = DecidedOrder("A-1", PaymentCheck.NotPaid(seeded, MerchantAction.INVESTIGATE), LedgerDecision.Decided(WebhookDecision.RetryLater("pending")))
        assertEquals(held, mapper.readValue(mapper.writeValueAsString(held), DecidedOrder::class.java))
        assertEquals(held, sikaJson.decodeFromString<DecidedOrder>(sikaJson.encodeToString(held)))
        val types = BasicPolymorphicTypeValidator.builder().allowIfBaseType(Any::class.java).build()
        val typed = jacksonObjectMapper().findAndRegisterModules()
            .activateDefaultTyping(types, ObjectMapper.DefaultTyping.EVERYTHING, JsonTypeInfo.As.PROPERTY)
        for (decision in decisions) {
            val text = typed.writeValueAsString(decision)
            assertEquals(decision, typed.readValue(text, Any::class.java), text)
        }
        // A type id that names another variant than the text's outcome is refused, never read as it.
        val lying = typed.writeValueAsString(PaymentCheck.NotYet(seeded)).replace("PaymentCheck\$NotYet", "PaymentCheck\$Confirmed")
        assertThrows<JsonMappingException> { typed.readValue(lying, Any::class.java) }
        val unknown = recordJson(PaymentCheck.NotYet(seeded)).replace("\"NOT_YET\"", "\"PAID\"")
        assertInstanceOf(SikaException.InvalidInput::class.java, assertThrows<JsonMappingException> { mapper.readValue(unknown, PaymentCheck::class.java) }.cause)
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
