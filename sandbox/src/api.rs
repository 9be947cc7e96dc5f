//! The three read operations of the service: list providers, list banks, verify.
//! (The charge has its own module.)

use std::collections::HashMap;

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;

use crate::envelope::{error, success};
use crate::seed::{self, Country};
use crate::state::AppState;
use crate::validate::is_valid_reference;

type CountryQuery = Result<Query<HashMap<String, String>>, QueryRejection>;

/// The `country` parameter (case-insensitive), or `default` when absent; `None` when the
/// code (or the query string) is not one the service knows.
fn requested_country(query: CountryQuery, default: &str) -> Option<&'static Country> {
    let Query(params) = query.ok()?;
    seed::country(params.get("country").map_or(default, String::as_str))
}

fn invalid_country() -> Response {
    error(StatusCode::BAD_REQUEST, "Invalid country code")
}

/// `GET /mobile-money-providers?country=XX`, default GH. Nigeria is a known country with no
/// providers (404 "No providers found"); an unknown code is 400 "Invalid country code".
pub async fn list_providers(query: CountryQuery) -> Response {
    let Some(country) = requested_country(query, "GH") else {
        return invalid_country();
    };
    let providers = seed::providers_for(country);
    if providers.is_empty() {
        return error(StatusCode::NOT_FOUND, "No providers found");
    }
    success(StatusCode::OK, "Mobile money providers retrieved successfully", &providers)
}

/// `GET /bank?country=XX`, default NG (the spec's server default, never GH).
pub async fn list_banks(query: CountryQuery) -> Response {
    match requested_country(query, "NG") {
        Some(country) => success(StatusCode::OK, "Banks retrieved successfully", &seed::banks_for(country)),
        None => invalid_country(),
    }
}

/// `GET /transaction/verify/{reference}`; the segment arrives percent-decoded (`a%2Fb` is
/// `a/b`). The stored transactions are looked up first, and only a miss is judged for format:
/// tests seed odd references to prove that clients keep a reference to one path segment.
pub async fn verify(State(state): State<AppState>, reference: Result<Path<String>, PathRejection>) -> Response {
    // A segment that does not decode to UTF-8 cannot name any stored transaction.
    let Ok(Path(reference)) = reference else {
        return error(StatusCode::BAD_REQUEST, "Invalid reference");
    };
    if let Some(transaction) = state.store.get(&reference) {
        return success(StatusCode::OK, "Verification successful", &transaction);
    }
    if is_valid_reference(&reference) {
        error(StatusCode::NOT_FOUND, "Transaction not found")
    } else {
        error(StatusCode::BAD_REQUEST, "Invalid reference")
    }
}
