package dev.sika.examples.spring;

import dev.sika.BlockingClient;
import dev.sika.BlockingLedger;
import dev.sika.Fulfilment;
import dev.sika.LedgerDecision;
import dev.sika.ReadyPayment;
import dev.sika.ReconcileFailure;
import dev.sika.ReconcileOptions;
import dev.sika.ReconcileReport;
import dev.sika.SikaException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Reconciles the payments still open on a schedule: the orders whose webhook never came (lost,
 * or the customer paid while the shop was down) are verified again and fulfilled once.
 *
 * <p>It stops at shutdown. A run verifies many payments, each call up to the client's timeout, so
 * it can outlast Spring's graceful shutdown by far; Spring does not stop a task that is running,
 * and a reconcile left running keeps the application from stopping until it ends. This bean is a
 * {@link SmartLifecycle} stopped first (the highest phase, before the web server's graceful
 * shutdown): {@link #stop()} refuses new runs and interrupts the one in progress. {@code
 * BlockingLedger} calls are interruptible: the reconcile is cancelled at once (its requests
 * dropped, the payments not checked stay open for the next run) and throws {@code
 * SikaException.Cancelled}. Decisions the run took before are kept: it is all or nothing per
 * payment, never half-recorded.
 */
@Component
public class Reconciler implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

    private final BlockingClient client;
    private final BlockingLedger ledger;
    private final Orders orders;
    private final ReconcileOptions options;
    /** The thread of the run in progress, to interrupt at shutdown. */
    private final AtomicReference<Thread> running = new AtomicReference<>();
    private volatile boolean started;

    public Reconciler(BlockingClient client, BlockingLedger ledger, Orders orders,
            @Value("${shop.reconcile.older-than:PT1M}") Duration olderThan) {
        this.client = client;
        this.ledger = ledger;
        this.orders = orders;
        // ReconcileOptions(olderThanMs, limit, concurrency): null keeps a default (100, 4).
        this.options = new ReconcileOptions(olderThan.toMillis(), null, null);
    }

    /** One run, every {@code shop.reconcile.every} after the last one ended. */
    @Scheduled(initialDelayString = "${shop.reconcile.first:PT1M}", fixedDelayString = "${shop.reconcile.every:PT5M}")
    public void reconcile() {
        Thread self = Thread.currentThread();
        running.set(self);
        try {
            // Checked after publishing the thread: a stop between the two interrupts this run.
            if (!started) {
                return;
            }
            ReconcileReport report = ledger.reconcile(client, options);
            // A run claims nothing (ADR 0081): each payment found paid is claimed as its turn comes.
            for (ReadyPayment ready : report.getReady()) {
                if (ledger.claim(ready) instanceof LedgerDecision.Fulfil fulfil) {
                    // Renewed while it ships, marked fulfilled after, given back if it throws.
                    Fulfilment.fulfil(ledger, fulfil.getClaim(), claim -> {
                        orders.fulfilOnce(claim.getReference(), "reconcile");
                        return null;
                    });
                }
            }
            for (ReconcileFailure failure : report.getFailures()) {
                log.warn("reconcile: {} not checked: {}", failure.getReference(), failure.getReason());
            }
            log.info("reconcile: {} payments checked", report.getChecked().size() + report.getReady().size());
        } catch (SikaException.Cancelled e) {
            log.info("reconcile: stopped at shutdown; the payments not checked stay open");
        } catch (SikaException e) {
            log.warn("reconcile failed: {}", e.getMessage());
        } finally {
            running.compareAndSet(self, null);
            // The scheduler's thread runs other tasks: the interrupt was for this run only.
            Thread.interrupted();
        }
    }

    @Override
    public void start() {
        started = true;
    }

    /** Refuses new runs and interrupts the one in progress, before the web server stops. */
    @Override
    public void stop() {
        started = false;
        Thread run = running.get();
        if (run != null) {
            log.info("reconcile: interrupting the run in progress");
            run.interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return started;
    }

    /** Stopped first, before the web server's graceful shutdown (Spring stops the highest phase first). */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE;
    }
}
