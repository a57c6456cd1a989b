//! Tags, pins and archive (filled in below).
