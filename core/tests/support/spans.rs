//! A `tracing` subscriber that records the spans the core makes (B185, B305).

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex, PoisonError};

use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// A span as the subscriber saw it: its name, fields (as text) and parent's name.
#[derive(Debug, Clone)]
pub struct Seen {
    pub id: u64,
    pub name: &'static str,
    pub parent: Option<u64>,
    pub fields: BTreeMap<String, String>,
}

#[derive(Clone, Default)]
pub struct Recorder(Arc<Mutex<Vec<Seen>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let parent = ctx.span(id).and_then(|span| span.parent()).map(|parent| parent.id().into_u64());
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let seen = Seen { id: id.into_u64(), name: attrs.metadata().name(), parent, fields };
        self.0.lock().unwrap_or_else(PoisonError::into_inner).push(seen);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        let mut spans = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(seen) = spans.iter_mut().find(|seen| seen.id == id.into_u64()) {
            values.record(&mut Fields(&mut seen.fields));
        }
    }
}

impl Recorder {
    pub fn install() -> (Self, tracing::subscriber::DefaultGuard) {
        let recorder = Self::default();
        let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(recorder.clone()));
        (recorder, guard)
    }

    pub fn spans(&self) -> Vec<Seen> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}
