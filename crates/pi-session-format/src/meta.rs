//! What the index keeps of a message besides its role: model, usage, tool fields ([`MessageMeta`]),
//! held out of line ([`MetaRef`]) so that the skeleton of every entry stays small.

use std::sync::{Arc, OnceLock};

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use crate::pages::HugeVec;

/// Token usage of an assistant message (`message.usage`), as far as the UI sums it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Usage {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total_tokens: f64,
    pub cost: f64,
}

/// The fields of an assistant or tool message the index keeps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MessageMeta {
    pub provider: Option<CompactString>,
    pub model: Option<CompactString>,
    pub stop_reason: Option<CompactString>,
    pub usage: Option<Usage>,
    pub tool_name: Option<CompactString>,
    pub is_error: bool,
}

impl Usage {
    /// Tokens as pi's `getSessionStats` counts them: input + output + cache read + cache write.
    pub fn tokens(&self) -> f64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

/// A message's [`MessageMeta`], read through `Deref`: its own box when the line was parsed, its
/// place in a block shared by the messages parsed together (one allocation per block instead of
/// one per message), or, for a session opened from its snapshot, its place in a block of the
/// snapshot decoded on first read (so opening a big session touches few fresh pages).
#[derive(Clone)]
pub struct MetaRef(MetaRepr);

#[derive(Clone)]
enum MetaRepr {
    Own(Box<MessageMeta>),
    Shared(Arc<HugeVec<MessageMeta>>, u32),
    Lazy(Arc<LazyBlock>, u32),
}

impl MetaRef {
    /// The `i`th meta of a shared block (`i` must be in the block).
    pub fn shared(block: &Arc<HugeVec<MessageMeta>>, i: u32) -> MetaRef {
        debug_assert!((i as usize) < block.len());
        MetaRef(MetaRepr::Shared(block.clone(), i))
    }

    /// The `i`th meta of a block of a snapshot (`i` below the block's count).
    pub fn lazy(block: &Arc<LazyBlock>, i: u32) -> MetaRef {
        MetaRef(MetaRepr::Lazy(block.clone(), i))
    }

    /// Whether the meta has been decoded: `None` unless it is in a block of a snapshot.
    pub fn decoded(&self) -> Option<bool> {
        match &self.0 {
            MetaRepr::Lazy(block, _) => Some(block.decoded()),
            _ => None,
        }
    }
}

impl From<MessageMeta> for MetaRef {
    fn from(m: MessageMeta) -> MetaRef {
        MetaRef(MetaRepr::Own(Box::new(m)))
    }
}

impl std::ops::Deref for MetaRef {
    type Target = MessageMeta;
    #[inline]
    fn deref(&self) -> &MessageMeta {
        match &self.0 {
            MetaRepr::Own(m) => m,
            MetaRepr::Shared(block, i) => &block[*i as usize],
            MetaRepr::Lazy(block, i) => block.get(*i),
        }
    }
}

impl PartialEq for MetaRef {
    fn eq(&self, other: &MetaRef) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for MetaRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

/// Where the metas of a [`LazyBlock`] come from when it is first read: the session crate's
/// snapshot decoder implements it. Called once per block, never per message.
pub trait LoadMetas: Send + Sync {
    /// The block's metas, in the order of its messages (one for each message pointing into it).
    fn load(&self) -> Box<[MessageMeta]>;
}

/// The metas of a block of messages, decoded when one of them is first read.
pub struct LazyBlock {
    metas: OnceLock<Box<[MessageMeta]>>,
    source: Box<dyn LoadMetas>,
}

impl LazyBlock {
    pub fn new(source: impl LoadMetas + 'static) -> LazyBlock {
        LazyBlock { metas: OnceLock::new(), source: Box::new(source) }
    }

    /// The `i`th meta of the block (`i` below the block's count).
    #[inline]
    pub fn get(&self, i: u32) -> &MessageMeta {
        &self.metas.get_or_init(|| self.source.load())[i as usize]
    }

    /// Whether the block has been decoded.
    pub fn decoded(&self) -> bool {
        self.metas.get().is_some()
    }
}
