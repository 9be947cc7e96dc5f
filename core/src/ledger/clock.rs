//! The clock of a SQLite ledger's leases (ADR 0095). A SQLite file is one machine's, and every
//! process on it that reads the wall clock would move its leases when that clock is stepped (an
//! NTP correction, an operator's `date -s`): a step forward makes every live lease look expired,
//! and the next delivery ships again while the holder is still shipping.
//!
//! So on Linux a SQLite ledger's time is the machine's boot clock (`CLOCK_BOOTTIME`: it counts
//! suspended time, and nothing steps it), anchored to the wall clock once per boot: the first
//! process to open the file after a boot records `wall - boot` with the boot's id, and every
//! process of that boot adds that one anchor to its boot clock. Their times agree, whatever their
//! wall clocks say later. A file of an earlier boot gets a new anchor: its leases' times, on the
//! old boot's anchor, are then compared on the wall clock, as before.
//!
//! Elsewhere (no boot clock or no boot id: macOS, a sandbox without `/proc`), the wall clock.

/// The boot clock's reading, with the id of the boot it counts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct BootClock {
    pub(super) boot_id: String,
    /// Microseconds since the boot.
    pub(super) micros: i64,
}

/// This machine's boot clock, or `None` where there is none.
pub(super) fn boot_clock() -> Option<BootClock> {
    Some(BootClock { boot_id: boot_id()?.to_owned(), micros: boot_micros()? })
}

/// Where a ledger reads its time: the wall clock (PostgreSQL decides leases on its server's clock
/// anyway, ADR 0071), or the boot clock plus a SQLite file's anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LedgerClock {
    Wall,
    Anchored { wall_minus_boot: i64 },
}

impl LedgerClock {
    /// Microseconds since the epoch. `wall` is this process's wall clock (a test's offset
    /// included), read only by the wall clock and where the boot clock cannot be read.
    pub(super) fn now(self, wall: impl FnOnce() -> i64) -> i64 {
        match (self, boot_micros()) {
            (Self::Anchored { wall_minus_boot }, Some(boot)) => boot.saturating_add(wall_minus_boot),
            _ => wall(),
        }
    }
}

#[cfg(target_os = "linux")]
fn boot_micros() -> Option<i64> {
    let time = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
    time.tv_sec.checked_mul(1_000_000)?.checked_add(time.tv_nsec / 1_000)
}

#[cfg(not(target_os = "linux"))]
fn boot_micros() -> Option<i64> {
    None
}

/// The kernel's id of this boot (read once: it changes only with a reboot).
fn boot_id() -> Option<&'static str> {
    static BOOT_ID: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    BOOT_ID
        .get_or_init(|| {
            let text = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
            Some(text.trim().to_owned()).filter(|id| !id.is_empty())
        })
        .as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// B319: on Linux the boot clock is read, with its boot's id, and an anchored clock is the
    /// boot clock plus the anchor, whatever the wall clock reads.
    #[cfg(target_os = "linux")]
    #[test]
    fn b319_an_anchored_clock_follows_the_boot_clock_not_the_wall_clock() {
        let before = boot_clock().expect("Linux has a boot clock and a boot id");
        assert_eq!(before.boot_id.len(), 36, "{before:?}");
        let clock = LedgerClock::Anchored { wall_minus_boot: 1_000_000_000 };
        let now = clock.now(|| panic!("the wall clock was read"));
        let after = boot_clock().expect("boot clock");
        assert!((before.micros + 1_000_000_000..=after.micros + 1_000_000_000).contains(&now), "{now}");
        assert_eq!(LedgerClock::Wall.now(|| 42), 42);
    }
}
