// A merchant's own unit test, from plain Java 17: the shop's fulfilment rule takes a Transaction,
// and the test builds the transactions it feeds it, with no network and no sandbox. Only the
// fields every transaction has are given (amount, currency, reference, status, and the body it
// came from); the descriptive ones keep their defaults (none, and no custom fields).
//
// Run by the Kotlin suite (JavaExampleIT, B186 and B194: compiled with javac -Xlint:all -Werror
// against the jar); by hand: java -cp CLASSPATH dev.sika.examples.JavaTestDoubles
package dev.sika.examples;

import dev.sika.Sika;
import dev.sika.SikaException;
import dev.sika.Transaction;
import dev.sika.TransactionStatus;
import java.math.BigDecimal;

public final class JavaTestDoubles {
    private JavaTestDoubles() {}

    /** The shop's rule under test: what to do with an order, from its transaction. */
    static String fulfilment(Transaction transaction) {
        switch (transaction.getStatus().merchantAction()) {
            case FULFIL_ORDER:
                return "ship " + transaction.getTxRef() + " (" + transaction.getAmount().toPlainString() + " " + transaction.getCurrency() + ")";
            case AWAIT_WEBHOOK_OR_REVERIFY:
                return "wait for " + transaction.getTxRef();
            default:
                return "do not ship " + transaction.getTxRef();
        }
    }

    private static Transaction transaction(String reference, TransactionStatus status) {
        return new Transaction(new BigDecimal("25.50"), "GHS", reference, status, "{}");
    }

    public static void main(String[] args) {
        Transaction paid = transaction("JAVA-DOUBLE-1", TransactionStatus.Successful.INSTANCE);
        System.out.println(fulfilment(paid));
        System.out.println(fulfilment(transaction("JAVA-DOUBLE-2", TransactionStatus.Pending.INSTANCE)));
        System.out.println(fulfilment(transaction("JAVA-DOUBLE-3", TransactionStatus.Failed.INSTANCE)));
        System.out.println("defaults: customer " + paid.getCustomer() + ", custom fields " + paid.getCustomFields().size()
            + ", created " + paid.getCreatedAt());
        // Stored as JSON (a cache, a queue) and read back: Sika's functions are static methods of `Sika`.
        try {
            System.out.println("read back equal: " + Sika.transactionFromJson(paid.toJson()).equals(paid));
        } catch (SikaException e) {
            throw new IllegalStateException(e);
        }
    }
}
