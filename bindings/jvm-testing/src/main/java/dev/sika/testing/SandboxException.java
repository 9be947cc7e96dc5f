package dev.sika.testing;

/** The sandbox could not start, or its control API refused a call (the answer is in the message). */
public final class SandboxException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed
     */
    public SandboxException(String message) {
        super(message);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public SandboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
