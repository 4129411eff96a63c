//! Wire formats: the files and messages other tools read, one typed,
//! versioned definition each.

pub mod observation;
