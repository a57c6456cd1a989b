//! Messages' metas (model, usage, tool fields) on their way into the entries: built here while
//! lines are parsed in file order (small files, appends), then moved into one shared block (one
//! allocation for up to [`META_BLOCK`] messages, not one each) that the messages' [`MetaRef`]s
//! point into. The index closes the block when it is full and at the end of every read, so
//! outside a read every message holds its meta. Lines parsed ahead on other threads (big
//! batches) keep a box each: handing those metas over to the blocks took longer and more
//! memory than the boxes (bench/README, the eighth round).

use std::sync::Arc;

use pi_session_format::pages::{HugePages, HugeVec};
use pi_session_format::entry::{Detail, Entry, MessageMeta, MetaRef};

/// Metas per block: 2 MB of them.
pub(super) const META_BLOCK: usize = (2 << 20) / std::mem::size_of::<MessageMeta>();

#[derive(Debug, Clone)]
pub(super) struct Metas {
    metas: HugeVec<MessageMeta>,
    /// The index into the entries of each meta's message.
    owners: Vec<u32>,
}

impl Default for Metas {
    fn default() -> Metas {
        Metas { metas: HugeVec::new_in(HugePages), owners: Vec::new() }
    }
}

impl Metas {
    /// Room for about `messages` metas in the first block (at most a block).
    pub(super) fn reserve(&mut self, messages: usize) {
        self.metas.reserve_exact(messages.min(META_BLOCK));
    }

    /// The block being gathered, with room for one more meta (a full block is closed first,
    /// into `entries`), so that a push never reallocates. Follow a push with [`Metas::owned_by`].
    pub(super) fn room(&mut self, entries: &mut [Entry]) -> &mut HugeVec<MessageMeta> {
        if self.metas.len() == META_BLOCK {
            self.close(entries);
        }
        let v = &mut self.metas;
        if v.len() == v.capacity() {
            // Grow by doubling, up to one block: never past it (a block is 2 MB of huge pages).
            let want = (v.capacity() * 2).clamp(16, META_BLOCK);
            v.reserve_exact(want - v.len());
        }
        v
    }

    /// The meta pushed last is the one of the entry at `owner`.
    pub(super) fn owned_by(&mut self, owner: u32) {
        self.owners.push(owner);
        debug_assert_eq!(self.metas.len(), self.owners.len(), "every gathered meta has its message");
    }

    /// Moves the gathered metas into one shared block and points their messages at it.
    pub(super) fn close(&mut self, entries: &mut [Entry]) {
        if self.owners.is_empty() {
            return;
        }
        let Metas { metas, owners } = std::mem::take(self);
        debug_assert_eq!(metas.len(), owners.len(), "every gathered meta has its message");
        let block = Arc::new(metas);
        for (i, &owner) in owners.iter().enumerate() {
            if let Some(Entry { detail: Detail::Message { meta, .. }, .. }) = entries.get_mut(owner as usize) {
                *meta = Some(MetaRef::shared(&block, i as u32));
            }
        }
    }
}
