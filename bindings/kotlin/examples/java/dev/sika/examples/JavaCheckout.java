// A merchant's checkout from plain Java 17: charge a mobile money number, wait for the
// customer, confirm the payment against the order and answer the service's webhook, then
// look up other orders and tell the service's failures apart. It uses both APIs Java has:
// Client's CompletableFuture methods (`...Async`) and the synchronous BlockingClient.
//
// Run by the Kotlin suite against the sandbox (JavaExampleIT: compiled with javac against the
// jar, run on JDK 17 and the newest JDK); by hand, with the jar's runtime classpath:
//   SIKA_BASE_URL=http://127.0.0.1:PORT SIKA_SECRET_KEY=sk_test_... \
//     java --enable-native-access=ALL-UNNAMED -cp CLASSPATH dev.sika.examples.JavaCheckout [REFERENCE...]
package dev.sika.examples;

import dev.sika.AwaitOptions;
import dev.sika.BlockingClient;
import dev.sika.ChargeRequest;
import dev.sika.Client;
import dev.sika.ClientConfig;
import dev.sika.ExpectedPayment;
import dev.sika.PaymentCheck;
import dev.sika.SecretKey;
import dev.sika.SikaException;
import dev.sika.SikaExceptions;
import dev.sika.Transaction;
import dev.sika.WebhookDecision;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletionException;

public final class JavaCheckout {
    private JavaCheckout() {}

    public static void main(String[] args) throws Exception {
        // The key and the base URL; every other setting keeps its default until set.
        ClientConfig config = new ClientConfig(new SecretKey(System.getenv("SIKA_SECRET_KEY")), System.getenv("SIKA_BASE_URL"));
        config.setTimeoutMs(10_000L);
        config.setMaxRetries(1);
        String reference = args.length > 0 ? args[0] : "ORDER-" + System.currentTimeMillis();
        // Both clients are AutoCloseable; share one of each per application.
        try (Client client = new Client(config); BlockingClient blocking = new BlockingClient(config)) {
            ExpectedPayment order = new ExpectedPayment(new BigDecimal("25.50"), "GHS");
            checkout(client, blocking, reference, order);
            for (String other : Arrays.copyOfRange(args, Math.min(1, args.length), args.length)) {
                lookUp(blocking, other);
            }
        } catch (SikaException.Configuration e) {
            // Thrown by the constructors: a bad base URL, an empty key, ... (an unset variable is
            // null, and `new SecretKey(null)` a NullPointerException: Client.fromEnv() reports it
            // as Configuration)
            System.err.println("misconfigured: " + e.getReason());
            System.exit(2);
        }
    }

    private static void checkout(Client client, BlockingClient blocking, String reference, ExpectedPayment order)
            throws SikaException {
        System.out.println("1. A bad amount is refused before anything is sent:");
        try {
            blocking.initiateCharge(charge(reference, new BigDecimal("-5")));
        } catch (SikaException.InvalidInput e) {
            System.out.println("   InvalidInput: field " + e.getField() + ", " + e.getReason());
        }

        System.out.println("2. Charging " + order.getAmount().toPlainString() + " " + order.getCurrency() + " (reference " + reference + ")");
        try {
            // join() throws CompletionException; get() throws ExecutionException: the cause is the SikaException.
            System.out.println("   HTTP " + client.initiateChargeAsync(charge(reference, order.getAmount())).join().getHttpStatus());
        } catch (CompletionException e) {
            if (!(e.getCause() instanceof SikaException.ChargeOutcomeUnknown lost)) {
                throw e;
            }
            // The service may have taken the charge: never send it again, follow its reference.
            System.out.println("   ChargeOutcomeUnknown: following " + lost.getReference() + " instead of charging again");
        }

        System.out.println("3. Waiting for the customer's answer:");
        AwaitOptions options = new AwaitOptions(200L, 200L, 1_000L, 30_000L, null);
        Transaction transaction = client.awaitFinalStatusAsync(reference, options).join();
        System.out.println("   final status: " + transaction.getStatus());

        System.out.println("4. Confirming the payment against the order:");
        PaymentCheck check = client.confirmPaymentAsync(reference, order).join();
        if (check instanceof PaymentCheck.Confirmed confirmed) {
            System.out.println("   Confirmed: ship (paid " + confirmed.getTransaction().getAmount().toPlainString() + ")");
        } else {
            System.out.println("   not confirmed: " + check);
        }

        System.out.println("5. The service's webhook for it (the body as the endpoint received it):");
        byte[] body = ("{\"event\":\"charge.success\",\"data\":{\"reference\":\"" + reference + "\"}}")
                .getBytes(StandardCharsets.UTF_8);
        WebhookDecision decision = blocking.handleWebhook(body, order);
        String action = decision instanceof WebhookDecision.Fulfil ? "ship once" : "do not ship";
        System.out.println("   " + decision.getClass().getSimpleName() + ": " + action + ", answer HTTP " + decision.httpStatus());
    }

    /** Verifies another order, telling the service's failures apart by their fields. */
    private static void lookUp(BlockingClient blocking, String reference) {
        System.out.println("6. Looking up " + reference + ":");
        try {
            System.out.println("   status: " + blocking.verifyTransaction(reference).getStatus());
        } catch (SikaException.RateLimited e) {
            Long retryAfter = e.getRetryAfterSeconds(); // null when the service named no time
            System.out.println("   RateLimited: retry after " + retryAfter + " s");
        } catch (SikaException.Api e) {
            System.out.println("   Api: HTTP " + e.getHttpStatus() + ", " + e.getServiceMessage());
            // The id to quote to the provider's support, on every SikaException (null for the
            // errors no request preceded).
            System.out.println("   request id: " + SikaExceptions.getRequestId(e));
        } catch (SikaException e) {
            // toString() is `dev.sika.SikaException$Kind: message`; getMessage() the core's text.
            // The id to quote to the provider's support: null for errors no request preceded.
            System.out.println("   " + e);
        }
    }

    private static ChargeRequest charge(String reference, BigDecimal amount) {
        // The sandbox answers by the phone's last four digits: 0000 pays.
        return new ChargeRequest(amount, "ama@example.com", "+233244120000", reference, "GHS", "MTN",
                "https://shop.example.com/orders/return");
    }
}
