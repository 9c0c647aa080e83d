//! Where a tile lives (C2SP `tlog-tiles`): `tile/<L>/<N>[.p/<W>]` for hash tiles,
//! `tile/entries/<N>[.p/<W>]` for entry bundles, and this log's own `tile/records/<N>[.p/<W>]`
//! (the stored entries; the spec lets a log serve entries in another encoding at another URL).
//! `<N>` is written in zero-padded 3-digit elements, all but the last prefixed with `x`.
//!
//! Owns the paths both ways: written by the tile writer, and parsed — strictly, as a request from
//! outside — by whatever serves them. MUST NOT accept a path the writer would not write.

/// Hashes in a full tile (the tiles' height is 8).
pub const WIDTH: u64 = 256;

/// The kinds of tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Hashes at level `L` (0: leaf hashes).
    Hashes(u8),
    /// Entry bundles: each log entry's hash, length-prefixed (what the leaves hash).
    Entries,
    /// This log's stored entries, length-prefixed, beside the entry bundles.
    Records,
}

/// One tile: its kind, its index in its level, and its width (256 for a full tile).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TilePath {
    pub kind: Kind,
    pub index: u64,
    pub width: u64,
}

impl TilePath {
    /// Whether it holds all 256 of its hashes (or entries).
    pub fn is_full(&self) -> bool {
        self.width == WIDTH
    }

    /// `tile/…`, relative to the log's prefix.
    pub fn render(&self) -> String {
        let mut path = match self.kind {
            Kind::Hashes(level) => format!("tile/{level}/"),
            Kind::Entries => "tile/entries/".to_string(),
            Kind::Records => "tile/records/".to_string(),
        };
        path.push_str(&index_elements(self.index));
        if !self.is_full() {
            path.push_str(&format!(".p/{}", self.width));
        }
        path
    }

    /// The directory of this tile's partial versions (`tile/…/<N>.p`).
    pub fn partials(&self) -> String {
        TilePath {
            width: WIDTH,
            ..*self
        }
        .render()
            + ".p"
    }

    /// Reads a path as written by [`TilePath::render`]; `None` for anything else.
    pub fn parse(path: &str) -> Option<TilePath> {
        let rest = path.strip_prefix("tile/")?;
        let (kind, rest) = rest.split_once('/')?;
        let kind = match kind {
            "entries" => Kind::Entries,
            "records" => Kind::Records,
            level => Kind::Hashes(decimal(level).filter(|l| *l <= 63)? as u8),
        };
        let (index, width) = match rest.split_once(".p/") {
            Some((index, width)) => (index, decimal(width).filter(|w| (1..WIDTH).contains(w))?),
            None => (rest, WIDTH),
        };
        let mut elements = index.split('/').peekable();
        let mut value: u64 = 0;
        while let Some(element) = elements.next() {
            let digits = if elements.peek().is_some() {
                element.strip_prefix('x')?
            } else {
                element
            };
            if digits.len() != 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            value = value
                .checked_mul(1000)?
                .checked_add(digits.parse::<u64>().ok()?)?;
        }
        let tile = TilePath {
            kind,
            index: value,
            width,
        };
        // One spelling per tile: no leading `x000/` element.
        (tile.render() == path).then_some(tile)
    }
}

/// `index` as `x001/x234/067`.
fn index_elements(index: u64) -> String {
    let mut parts = vec![format!("{:03}", index % 1000)];
    let mut rest = index / 1000;
    while rest > 0 {
        parts.push(format!("x{:03}", rest % 1000));
        rest /= 1000;
    }
    parts.reverse();
    parts.join("/")
}

/// A decimal with no leading zero (or `0` itself).
fn decimal(text: &str) -> Option<u64> {
    let canonical = !text.is_empty()
        && text.len() <= 20
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    canonical.then(|| text.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_are_written_as_the_spec_writes_them() {
        let tile = |kind, index, width| TilePath { kind, index, width }.render();
        assert_eq!(
            tile(Kind::Hashes(0), 1_234_067, 256),
            "tile/0/x001/x234/067"
        );
        assert_eq!(tile(Kind::Hashes(2), 0, 1), "tile/2/000.p/1");
        assert_eq!(tile(Kind::Entries, 999, 255), "tile/entries/999.p/255");
        assert_eq!(tile(Kind::Records, 1000, 256), "tile/records/x001/000");
        assert_eq!(tile(Kind::Hashes(1), 1000, 17), "tile/1/x001/000.p/17");
        assert_eq!(
            TilePath {
                kind: Kind::Hashes(0),
                index: 5,
                width: 256
            }
            .partials(),
            "tile/0/005.p"
        );
    }

    #[test]
    fn every_written_path_reads_back_and_nothing_else_does() {
        for kind in [
            Kind::Hashes(0),
            Kind::Hashes(63),
            Kind::Entries,
            Kind::Records,
        ] {
            for index in [0, 1, 999, 1000, 1_234_067, u64::MAX] {
                for width in [1, 17, 255, 256] {
                    let tile = TilePath { kind, index, width };
                    assert_eq!(TilePath::parse(&tile.render()), Some(tile));
                }
            }
        }
        for bad in [
            "",
            "tile",
            "tile/",
            "tile/0",
            "tile/0/",
            "tile/0/1",
            "tile/0/0001",
            "tile/00/000",
            "tile/64/000",
            "tile/-1/000",
            "tile/0/x000/001",
            "tile/0/001/002",
            "tile/0/x1/002",
            "tile/0/000.p/0",
            "tile/0/000.p/256",
            "tile/0/000.p/07",
            "tile/0/000.p/",
            "tile/0/000.p",
            "tile/data/000",
            "tile/entries/000/",
            "/tile/0/000",
            "tile/0/../000",
            "tile/0/x018/x446/x744/x073/x709/x551/616",
            "checkpoint",
            "tile/0/00a",
            "tile/ 0/000",
            "tile/0/000.p/1/",
        ] {
            assert_eq!(TilePath::parse(bad), None, "{bad:?} was read as a tile");
        }
    }
}
