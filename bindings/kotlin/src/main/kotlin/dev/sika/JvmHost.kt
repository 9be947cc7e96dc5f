package dev.sika

import com.sun.jna.CallbackThreadInitializer
import com.sun.jna.Native

/**
 * What the JVM host sets up as the generated code loads the native library (the Kotlin patch
 * `server_only` calls [loaded], with the callback registrations, before any call).
 */
internal object JvmHost {
    /** The name of the SDK's threads while they wake coroutines (thread dumps, profilers). */
    const val WAKING_THREAD_NAME = "sika-wake"

    fun loaded() {
        ServerOnly.report()
        if (false) keepWakingThreadsAttached()
    }

    /**
     * A call ends on one of the SDK's threads, which wakes the coroutine awaiting it through
     * UniFFI's continuation callback. JNA attaches a thread to the VM for a callback and, by
     * default, detaches it afterwards: a new `java.lang.Thread` for every wake. Kept attached
     * (as a daemon, so it never holds the VM's exit), a thread is attached once (ADR 0068).
     * JNA detaches it when the native thread ends.
     */
    private fun keepWakingThreadsAttached() {
        Native.setCallbackThreadInitializer(
            uniffiRustFutureContinuationCallbackImpl,
            CallbackThreadInitializer(true, false, WAKING_THREAD_NAME),
        )
    }
}
