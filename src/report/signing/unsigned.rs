//! A build without the `sign` feature: no key can be loaded, so no run
//! is signed; a key that is offered anyway is refused, not ignored.

use super::key::KeyProblem;

/// What signing can fail with: nothing, as nothing is signed.
pub(crate) type SignError = std::convert::Infallible;

/// A signing key, of which this build has none: a type without values.
#[derive(Debug)]
pub enum Signer {}

impl Signer {
    /// Every key is refused: this build cannot sign.
    pub(crate) fn parse(_text: &str, _password: Option<String>) -> Result<Signer, KeyProblem> {
        Err(KeyProblem::NotBuilt)
    }

    /// Never called: there is no signer.
    pub(crate) fn open_envelope(&self, _bytes: &[u8]) -> Result<Vec<u8>, String> {
        match *self {}
    }

    /// Never called: there is no signer.
    pub(crate) fn sign_dsse(&self, _message: &[u8]) -> (String, Vec<u8>) {
        match *self {}
    }

    /// Never called: there is no signer.
    pub(crate) fn sign(&self, _data: &[u8], _run_id: &str) -> Result<String, SignError> {
        match *self {}
    }
}
