//! A checkpoint's text (C2SP `tlog-checkpoint`), read strictly by the ledger's one reader of it
//! (`pitboss_ledger::checkpoint::Text`), which the log's own checkpoints go through too:
//! signatures are the note's (`note.rs`).

pub use pitboss_ledger::checkpoint::{
    decimal, hash, Text as Checkpoint, TextError as CheckpointError, MAX_EXTENSIONS,
};

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;

    #[test]
    fn a_checkpoint_reads_and_bad_ones_are_named() {
        let root = STANDARD.encode([7u8; 32]);
        let c = Checkpoint::parse(&format!("o\n12\n{root}\next\n")).unwrap();
        assert_eq!((c.origin.as_str(), c.size, c.root), ("o", 12, [7; 32]));
        assert_eq!(c.extensions, vec!["ext".to_string()]);
        assert_eq!(
            Checkpoint::parse(&format!("o\n012\n{root}\n")),
            Err(CheckpointError::BadSize)
        );
        assert_eq!(
            Checkpoint::parse("o\n1\nAAAA\n"),
            Err(CheckpointError::BadRoot)
        );
        assert_eq!(
            Checkpoint::parse(&format!("\n1\n{root}\n")),
            Err(CheckpointError::NoOrigin)
        );
        assert!(Checkpoint::parse(&format!("o\n0\n{root}\n")).is_ok());
    }
}
