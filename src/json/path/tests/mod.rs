//! Tests of the JSONPath module over an in-memory, order-preserving document tree.

mod cts;
mod engine;
mod props;
mod queries;
pub(crate) mod tree;
