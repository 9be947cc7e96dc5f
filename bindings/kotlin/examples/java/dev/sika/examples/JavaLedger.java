// A merchant's ledger from plain Java 17 (fulfil exactly once): charge through the ledger,
// record an order paid some other way, answer the service's webhook (delivered twice: one
// Fulfil, one "already fulfilled"), mark the order fulfilled, read its record back, settle it
// from the order page, and reconcile the payments still open, as a scheduled job does. It is
// written as a servlet thread (or a virtual thread) would: `BlockingLedger` over a
// `BlockingClient`, plain calls that park the thread. Code built on futures uses `Ledger` over a
// `Client` instead: the same operations as `...Async` twins (`handleWebhookAsync`, ...).
//
// Run by the Kotlin suite against the sandbox (JavaExampleIT, B182: compiled with javac against
// the jar, run on JDK 17); by hand, with the jar's runtime classpath:
//   SIKA_BASE_URL=http://127.0.0.1:PORT SIKA_SECRET_KEY=sk_test_... \
//     java --enable-native-access=ALL-UNNAMED -cp CLASSPATH dev.sika.examples.JavaLedger ORDER OTHER-ORDER
package dev.sika.examples;

import dev.sika.AwaitOptions;
import dev.sika.BlockingClient;
import dev.sika.BlockingLedger;
import dev.sika.ChargeRequest;
import dev.sika.ClientConfig;
import dev.sika.ExpectedPayment;
import dev.sika.Fulfilment;
import dev.sika.LedgerDecision;
import dev.sika.LedgerOptions;
import dev.sika.PaymentRecord;
import dev.sika.ReadyPayment;
import dev.sika.ReconcileFailure;
import dev.sika.ReconcileOptions;
import dev.sika.ReconcileReport;
import dev.sika.ReconciledPayment;
import dev.sika.SecretKey;
import dev.sika.SikaException;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

public final class JavaLedger {
    private JavaLedger() {}

    public static void main(String[] args) throws IOException, SikaException {
        // The key and the base URL; every other setting keeps its default until set.
        ClientConfig config = new ClientConfig(new SecretKey(System.getenv("SIKA_SECRET_KEY")), System.getenv("SIKA_BASE_URL"));
        config.setTimeoutMs(10_000L);
        config.setMaxRetries(1);
        String reference = args.length > 0 ? args[0] : "ORDER-" + System.currentTimeMillis();
        String other = args.length > 1 ? args[1] : reference + "-B";
        ExpectedPayment order = new ExpectedPayment(new BigDecimal("25.50"), "GHS");
        // The ledger's SQLite file (created, with its tables, on first use); a server shares one
        // ledger per application, or opens BlockingLedger.postgres(new SecretUrl(url), options) when
        // several processes or machines fulfil orders.
        Path file = Files.createTempDirectory("sika-ledger").resolve("orders-ledger.db");
        try (BlockingClient client = new BlockingClient(config);
                BlockingLedger ledger = BlockingLedger.sqlite(file.toString(), new LedgerOptions())) {
            System.out.println("1. Charging " + reference + " through the ledger (the order's figures recorded first):");
            try {
                System.out.println("   HTTP " + ledger.initiateCharge(client, charge(reference, order.getAmount())).getHttpStatus());
            } catch (SikaException.ChargeOutcomeUnknown e) {
                System.out.println("   ChargeOutcomeUnknown: the webhook or reconcile decides");
            }

            System.out.println("2. An order paid some other way, expected by hand:");
            ledger.expect(other, order);
            System.out.println("   expected " + other);

            // The customer answers; then the service notifies.
            client.awaitFinalStatus(reference, new AwaitOptions(200L, 200L, 1_000L, 30_000L, null));
            System.out.println("3. The webhook, delivered twice:");
            byte[] body = ("{\"event\":\"charge.success\",\"data\":{\"reference\":\"" + reference + "\"}}")
                    .getBytes(StandardCharsets.UTF_8);
            for (int delivery = 1; delivery <= 2; delivery++) {
                LedgerDecision decision = ledger.handleWebhook(client, body);
                if (decision instanceof LedgerDecision.Fulfil fulfil) {
                    // Renewed while the block ships, marked fulfilled when it returns, given back
                    // (offered to the next delivery at once) when it throws.
                    Fulfilment.fulfil(ledger, fulfil.getClaim(), claim -> {
                        System.out.println("   Fulfil: ship " + claim.getReference() + " once");
                        return null;
                    });
                    System.out.println("   marked fulfilled");
                } else {
                    System.out.println("   " + decision.getClass().getSimpleName() + ": do not ship");
                }
                System.out.println("   answer HTTP " + decision.httpStatus());
            }

            PaymentRecord record = ledger.payment(reference);
            System.out.println("4. Its record: last status " + record.getLastStatus() + ", fulfilled " + (record.getFulfilledAt() != null)
                    + ", claims offered " + record.getClaimsOffered());
            System.out.println("5. The order page settles it: " + ledger.settle(client, reference).getClass().getSimpleName());

            System.out.println("6. Reconciling the payments still open:");
            // ReconcileOptions(olderThanMs, limit, concurrency, deadlineMs): null, or left out, keeps a default.
            ReconcileReport report = ledger.reconcile(client, new ReconcileOptions(0L, 100L, 2L));
            // A run claims nothing (ADR 0081): claim each payment it found paid as its turn comes.
            for (ReadyPayment ready : report.getReady()) {
                if (ledger.claim(ready) instanceof LedgerDecision.Fulfil fulfil) {
                    Fulfilment.fulfil(ledger, fulfil.getClaim(), claim -> {
                        System.out.println("   reconciled " + claim.getReference() + ": Fulfil: ship once");
                        return null;
                    });
                }
            }
            for (ReconciledPayment payment : report.getChecked()) {
                System.out.println("   reconciled " + payment.getReference() + ": " + payment.getDecision().getClass().getSimpleName());
            }
            for (ReconcileFailure failure : report.getFailures()) {
                System.out.println("   not checked " + failure.getReference() + ": " + failure.getReason());
            }
            System.out.println("   " + other + " fulfilled: " + (ledger.payment(other).getFulfilledAt() != null));
        }
    }

    private static ChargeRequest charge(String reference, BigDecimal amount) {
        // The sandbox answers by the phone's last four digits: 0000 pays.
        return new ChargeRequest(amount, "ama@example.com", "+233244120000", reference, "GHS", "MTN",
                "https://shop.example.com/orders/return");
    }
}
