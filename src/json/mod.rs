//! The JSON engine: scanning large documents, and JSONPath queries over them.
pub mod path;
