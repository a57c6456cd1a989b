//! Corpus generation and benchmarking for Pi Session Explorer: `pi-corpus` writes realistic
//! pi session corpora, `pi-bench` times our CLI and the real pi on one (see `bench/README.md`).

#[cfg(unix)]
pub mod bench;
pub mod brute;
pub mod corpus;
pub mod lines;
pub mod rng;
pub mod text;
