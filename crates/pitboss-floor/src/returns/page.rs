//! A page of returns rows and the token that resumes after it. A token carries the page's last
//! row itself (its key's fields and its window), so the next page starts after that row by the
//! rows' own order, whether or not the row is still there and however many keys came since: no
//! row is skipped or repeated, and only rows that sort before it and came since are not shown.
//! Holds no figures: the rows are `Returns`'.

use pitboss_engine::config::ConfigId;
use pitboss_engine::game::GameId;

use super::tally::Key;
use super::{Filter, Row};
use crate::floor::MAX_NAME_CHARS;

/// Why a page token is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Not made by [`Cursor::token`].
    #[error("not a token this service issued")]
    Malformed,
    /// Names a window the query does not ask for: a token of another query.
    #[error("names window {0}, which this query does not ask for (a token of another query?)")]
    Window(u32),
}

/// The last row of a page: where the next begins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    key: Key,
    window_days: u32,
}

/// The longest id a token carries (a game's, a bet group's), in bytes.
const ID_MAX: usize = 64;

impl Cursor {
    /// The longest token, in hexadecimal digits: every field at its longest, each with its
    /// two-byte length, and the window.
    pub const TOKEN_MAX_LEN: usize = 2 * (2 * (2 + ID_MAX) + 2 * (2 + 4 * MAX_NAME_CHARS) + 32 + 4);

    /// The cursor after `row`.
    pub fn after(row: &Row) -> Cursor {
        Cursor {
            key: row.key.clone(),
            window_days: row.window_days,
        }
    }

    /// The cursor as a page token: hexadecimal of the game, table, dealer and bet group (each
    /// length-prefixed), the configuration id and the window.
    pub fn token(&self) -> String {
        let mut bytes = Vec::new();
        for text in [
            self.key.game.id(),
            self.key.table.as_str(),
            self.key.dealer.as_str(),
            self.key.bet.as_str(),
        ] {
            let len = u16::try_from(text.len()).unwrap_or(u16::MAX);
            bytes.extend_from_slice(&len.to_be_bytes());
            bytes.extend_from_slice(&text.as_bytes()[..usize::from(len)]);
        }
        bytes.extend_from_slice(&self.key.config_id.0);
        bytes.extend_from_slice(&self.window_days.to_be_bytes());
        hex::encode(bytes)
    }

    /// The cursor `token` names, if [`Cursor::token`] made it.
    pub fn parse(token: &str) -> Result<Cursor, TokenError> {
        if token.len() > Self::TOKEN_MAX_LEN {
            return Err(TokenError::Malformed);
        }
        let bytes = hex::decode(token).map_err(|_| TokenError::Malformed)?;
        let mut rest = bytes.as_slice();
        let mut text = || -> Result<String, TokenError> {
            let (len, after) = rest.split_first_chunk::<2>().ok_or(TokenError::Malformed)?;
            let len = usize::from(u16::from_be_bytes(*len));
            let (text, after) = after.split_at_checked(len).ok_or(TokenError::Malformed)?;
            rest = after;
            String::from_utf8(text.to_vec()).map_err(|_| TokenError::Malformed)
        };
        let game: GameId = text()?.parse().map_err(|_| TokenError::Malformed)?;
        let (table, dealer, bet) = (text()?, text()?, text()?);
        let (config, after) = rest
            .split_first_chunk::<32>()
            .ok_or(TokenError::Malformed)?;
        let window: [u8; 4] = after.try_into().map_err(|_| TokenError::Malformed)?;
        Ok(Cursor {
            key: Key {
                game,
                table,
                dealer,
                config_id: ConfigId(*config),
                bet,
            },
            window_days: u32::from_be_bytes(window),
        })
    }

    /// Where the rows after this cursor begin in `rows` (`filter`'s, in their order: by key,
    /// then by the filter's windows).
    pub fn start_in(&self, rows: &[Row], filter: &Filter) -> Result<usize, TokenError> {
        let windows = filter.windows();
        let at = |w: u32| windows.iter().position(|&x| x == w);
        let mine = at(self.window_days).ok_or(TokenError::Window(self.window_days))?;
        Ok(rows.partition_point(|r| {
            (&r.key, at(r.window_days).unwrap_or(windows.len())) <= (&self.key, mine)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::returns::{tally::Sums, WINDOWS};

    /// Every row of `tables`' keys, in a filter's order: each table's main bet, in every window.
    fn rows_of_tables(tables: &[&str]) -> Vec<Row> {
        let mut keys: Vec<Key> = tables.iter().map(|t| key(t)).collect();
        keys.sort();
        keys.iter()
            .flat_map(|key| {
                WINDOWS.iter().map(|&window_days| Row {
                    key: key.clone(),
                    window_days,
                    sums: Sums::default(),
                    theory: Err("none".into()),
                    open_alert: None,
                })
            })
            .collect()
    }

    fn key(table: &str) -> Key {
        Key {
            game: GameId::CaribbeanStud,
            table: table.to_string(),
            dealer: String::new(),
            config_id: ConfigId([7; 32]),
            bet: "main".into(),
        }
    }

    #[test]
    fn pages_resumed_from_their_token_neither_skip_nor_repeat_rows_as_tables_come() {
        let named = |rows: &[Row]| -> Vec<(String, u32)> {
            rows.iter()
                .map(|r| (r.key.table.clone(), r.window_days))
                .collect()
        };
        let filter = Filter::default();
        // Pages of three rows; between pages, tables sort in before and after the cursor.
        let mut tables = vec!["t10", "t20", "t30"];
        let arrivals = [
            ["t05", "t99"],
            ["t15", "t25"],
            ["t00", "t31"],
            ["t11", "t35"],
        ];
        let mut seen = Vec::new();
        let mut token: Option<String> = None;
        for page in 0.. {
            let rows = rows_of_tables(&tables);
            let first = match &token {
                None => 0,
                Some(t) => Cursor::parse(t).unwrap().start_in(&rows, &filter).unwrap(),
            };
            let end = (first + 3).min(rows.len());
            seen.extend(named(&rows[first..end]));
            if end == rows.len() {
                break;
            }
            token = Some(Cursor::after(&rows[end - 1]).token());
            if let Some(more) = arrivals.get(page) {
                tables.extend(more);
            }
        }
        // In the rows' order, each once; missing only tables that came sorting before a cursor.
        let all = named(&rows_of_tables(&tables));
        let at = |x: &(String, u32)| all.iter().position(|y| y == x).unwrap();
        assert!(seen.windows(2).all(|w| at(&w[0]) < at(&w[1])), "{seen:?}");
        for row in all.iter().filter(|r| !seen.contains(r)) {
            assert!(
                ["t05", "t15", "t00", "t11"].contains(&row.0.as_str()),
                "{row:?}"
            );
        }
        for table in ["t10", "t20", "t25", "t30", "t31", "t35", "t99"] {
            let shown = seen.iter().filter(|(t, _)| t == table).count();
            assert_eq!(shown, WINDOWS.len(), "{table}: {seen:?}");
        }
    }

    #[test]
    fn a_token_resumes_after_its_row_even_when_the_row_is_not_there() {
        let filter = Filter::default();
        let rows = rows_of_tables(&["a", "c"]);
        // After b's lifetime row: every row of c.
        let b = Cursor::after(&rows_of_tables(&["b"])[0]);
        assert_eq!(b.start_in(&rows, &filter), Ok(WINDOWS.len()));
        // After c's last window: nothing.
        let last = Cursor::after(rows.last().unwrap());
        assert_eq!(last.start_in(&rows, &filter), Ok(rows.len()));
        // A window the query does not ask for is another query's token.
        let only_lifetime = Filter {
            windows: vec![0],
            ..Filter::default()
        };
        let seven = Cursor::after(&rows[2]);
        assert_eq!(seven.window_days, 7);
        assert_eq!(
            seven.start_in(&rows, &only_lifetime),
            Err(TokenError::Window(7))
        );
    }

    #[test]
    fn tokens_round_trip_at_their_longest_and_anything_else_is_refused() {
        let long = "\u{10348}".repeat(MAX_NAME_CHARS);
        let row = Row {
            key: Key {
                game: GameId::MississippiStud,
                table: long.clone(),
                dealer: long,
                config_id: ConfigId([0xAB; 32]),
                bet: "x".repeat(ID_MAX),
            },
            window_days: 30,
            sums: Sums::default(),
            theory: Err("none".into()),
            open_alert: None,
        };
        let cursor = Cursor::after(&row);
        let token = cursor.token();
        assert!(token.len() <= Cursor::TOKEN_MAX_LEN, "{}", token.len());
        assert_eq!(Cursor::parse(&token), Ok(cursor));
        for bad in [
            String::new(),
            "12".into(),
            "zz".repeat(30),
            token[..token.len() - 2].to_string(),
            format!("{token}00"),
            "0".repeat(40),
            // An unknown game.
            format!(
                "0001{}{}",
                hex::encode("q"),
                &token[4 + 2 * "mississippi_stud".len()..]
            ),
        ] {
            assert_eq!(Cursor::parse(&bad), Err(TokenError::Malformed), "{bad}");
        }
    }
}
