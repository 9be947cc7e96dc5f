"""B46: the blocking client never sends a call on a pooled connection the server closed while
idle (a proxy's keep-alive timeout): every charge reaches the service, none comes back as
ChargeOutcomeUnknown for a request the service never received."""

from __future__ import annotations

from support import charge, poll_open_connections, scenario

# faults.json's stale_pooled_connection: enough rounds that a client which reuses the closed
# connection fails (before the fix, one of the first ten rounds did in the Rust suite).
SETUP = scenario("stale_pooled_connection")


def test_b46_blocking_charge_after_the_server_closed_the_pooled_connection_reaches_the_server(sandbox):
    # No retries: a charge sent on the dead connection must show, not be hidden by a retry.
    client = sandbox.blocking_client(max_retries=SETUP["max_retries"])
    sandbox.fault(SETUP["path"], SETUP["kind"], count=SETUP["rounds"])
    for round_number in range(SETUP["rounds"]):
        response = client.initiate_charge(charge(f"B46-{round_number}"))
        assert response.status is True, round_number
        # The sandbox closed the charge's connection (only this poll's own request stays open),
        # so its FIN is at the client's socket before the next call starts.
        assert poll_open_connections(sandbox, lambda open_now: open_now <= 1) <= 1, round_number
    charges = [request for request in sandbox.requests() if request["path"] == SETUP["path"]]
    assert len(charges) == SETUP["rounds"]
