package dev.sika

import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertDoesNotThrow
import org.junit.jupiter.api.assertThrows

/** B57: on Android every client constructor throws `Configuration` (ADR 0027); a server JVM builds clients. */
class ServerOnlyTest {
    /** What Android's runtime says about itself (ART still names its VM "Dalvik"). */
    private val android = mapOf(
        "java.vm.name" to "Dalvik",
        "java.vm.vendor" to "The Android Project",
        "java.runtime.name" to "Android Runtime",
    )

    // No call is made: constructing a client connects to nothing.
    private fun config() = ClientConfig(SecretKey(KEY), "http://127.0.0.1:9")

    private fun assertServerOnly(error: SikaException.Configuration) {
        val text = error.message()
        assertTrue(text.contains("server-only") && text.contains("Where Sika runs"), text)
        assertTrue(!text.contains(KEY), "the key leaked: $text")
    }

    @Test
    fun testB57EachAndroidPropertyIsDetectedAndThisJvmIsNot() {
        for ((name, value) in android) {
            val properties = mapOf(name to value)
            assertThrows<SikaException.Configuration> { ServerOnly.check(properties::get) }
                .also(::assertServerOnly)
        }
        assertDoesNotThrow { ServerOnly.check() }
    }

    @Test
    fun testB57EveryClientConstructorThrowsConfigurationOnAndroid() {
        val saved = android.keys.associateWith { System.getProperty(it) }
        try {
            android.forEach { (name, value) -> System.setProperty(name, value) }
            ServerOnly.report() // what the library's loader does, with this JVM's properties now Android's
            assertThrows<SikaException.Configuration> { Client(config()) }.also(::assertServerOnly)
            assertThrows<SikaException.Configuration> { BlockingClient(config()) }.also(::assertServerOnly)
            assertThrows<SikaException.Configuration> { Client.fromEnv() }.also(::assertServerOnly)
            assertThrows<SikaException.Configuration> { BlockingClient.fromEnv() }.also(::assertServerOnly)
        } finally {
            saved.forEach { (name, value) -> if (value == null) System.clearProperty(name) else System.setProperty(name, value) }
            ServerOnly.report()
        }
        Client(config()).use { }
        BlockingClient(config()).use { }
    }
}
