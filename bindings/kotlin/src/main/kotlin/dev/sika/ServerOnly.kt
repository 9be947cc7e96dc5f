package dev.sika

/**
 * Tells the core which runtime this is (ADR 0027), so that every client constructor on Android
 * throws `SikaException.Configuration`: a secret key inside an app can be unpacked by anyone.
 * The core decides and words the error; this only reads the JVM's own facts about itself.
 *
 * Called by [JvmHost.loaded] as the generated code loads the native library (the Kotlin patch
 * `server_only`).
 */
internal object ServerOnly {
    /** The properties the core is given, in the order of `reportHostRuntime`'s parameters. */
    val PROPERTIES = listOf("java.vm.name", "java.vm.vendor", "java.runtime.name")

    /** Throws `SikaException.Configuration` if [properties] (by default the JVM's) are Android's. */
    fun check(properties: (String) -> String? = System::getProperty) {
        val (vmName, vmVendor, runtimeName) = PROPERTIES.map { properties(it).orEmpty() }
        checkHostRuntime(vmName, vmVendor, runtimeName)
    }

    /** Reports this JVM to the core; its properties are read again on each call (tests set them). */
    fun report() {
        val (vmName, vmVendor, runtimeName) = PROPERTIES.map { System.getProperty(it).orEmpty() }
        reportHostRuntime(vmName, vmVendor, runtimeName)
    }
}
