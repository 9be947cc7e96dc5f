package dev.sika

import com.sun.jna.Callback
import com.sun.jna.CallbackThreadInitializer
import com.sun.jna.Native

/**
 * What the JVM host sets up as the generated code loads the native library (the Kotlin patch
 * `server_only` calls [loaded] in the loader's `init`, before any call and before any callback
 * interface is registered).
 */
internal object JvmHost {
    /** The name of the SDK's threads while they wake coroutines (thread dumps, profilers). */
    const val WAKING_THREAD_NAME = "sika-wake"

    /** The name of the SDK's logging thread (ADR 0044) in the JVM: log patterns' `%thread`. */
    const val LOGGING_THREAD_NAME = "sika-log"

    fun loaded() {
        ServerOnly.report()
        // A call ends on one of the SDK's threads, which wakes the coroutine awaiting it.
        keepAttached(uniffiRustFutureContinuationCallbackImpl, WAKING_THREAD_NAME)
        // Records reach SLF4J on the SDK's one logging thread.
        keepAttached(uniffiCallbackInterfaceLogSink.`log`, LOGGING_THREAD_NAME)
    }

    /**
     * JNA attaches a native thread to the VM for a callback and, by default, detaches it
     * afterwards: a new `java.lang.Thread` (named `Thread-N`) for every wake or record. Kept
     * attached, as a daemon (so it never holds the VM's exit) under a name of its own, a thread
     * is attached once (ADR 0068); JNA detaches it when the native thread ends. JNA reads the
     * initializer when it makes the callback's native pointer, so this runs before the callback
     * is handed to the core (the load hook sits before the registrations).
     */
    private fun keepAttached(callback: Callback, name: String) {
        Native.setCallbackThreadInitializer(callback, CallbackThreadInitializer(true, false, name))
    }
}
