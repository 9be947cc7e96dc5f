package dev.sika

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/**
 * B253: a test double of an error is one line. Every variant's optional last fields
 * (`requestId`, `retryAfterSeconds`) default to `null`, in Kotlin and, through `@JvmOverloads`
 * constructors, in Java; before issue 47 both had to pass them.
 */
class ErrorTestDoublesTest {
    /** A merchant's code under test: on an unknown outcome it verifies before charging again. */
    private class Shop(private val charge: (String) -> Unit) {
        val toVerify = mutableListOf<String>()

        fun checkout(reference: String): String = try {
            charge(reference)
            "charged"
        } catch (error: SikaException.ChargeOutcomeUnknown) {
            toVerify += error.reference
            "verify before charging again"
        }
    }

    @Test
    fun testB253AOneLineTestDoubleOfAnErrorWorks() {
        val shop = Shop { reference -> throw SikaException.ChargeOutcomeUnknown(reference = reference, reason = "the connection broke") }
        assertEquals("verify before charging again", shop.checkout("ORDER-7"))
        assertEquals(listOf("ORDER-7"), shop.toVerify)
    }

    @Test
    fun testB253OptionalFieldsDefaultToNullAndGivenOnesAreKept() {
        assertNull(SikaException.Unauthorized().requestId)
        assertNull(SikaException.Timeout().requestId)
        assertNull(SikaException.Api(httpStatus = 409, serviceMessage = "Duplicate transaction reference").requestId)
        val limited = SikaException.RateLimited()
        assertNull(limited.retryAfterSeconds)
        assertNull(limited.requestId)
        assertEquals(30L, SikaException.RateLimited(retryAfterSeconds = 30).retryAfterSeconds)
        assertNull(SikaException.Network(reason = "reset").requestId)
        assertEquals("req_1", SikaException.ChargeOutcomeUnknown("R", "x", "req_1").requestId)
        // The core's text, as for an error the core raised.
        val error = SikaException.ChargeOutcomeUnknown(reference = "R", reason = "x")
        assertEquals(error.message(), error.message)
    }

    @Test
    fun testB253JavaConstructsAnErrorWithItsRequiredFieldsOnly() {
        // What `new SikaException.ChargeOutcomeUnknown("R", "x")` and `new SikaException.Timeout()` call.
        val outcome = SikaException.ChargeOutcomeUnknown::class.java
            .getConstructor(String::class.java, String::class.java)
            .newInstance("R", "x")
        assertEquals("R", outcome.reference)
        assertNull(outcome.requestId)
        assertNull(SikaException.Timeout::class.java.getConstructor().newInstance().requestId)
        // Required fields stay required.
        assertThrows<NoSuchMethodException> { SikaException.ChargeOutcomeUnknown::class.java.getConstructor(String::class.java) }
        assertThrows<NoSuchMethodException> { SikaException.InvalidInput::class.java.getConstructor() }
    }
}
