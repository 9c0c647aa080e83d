//! A PAR sheet: every outcome row with its exact weight (a fraction), how much is wagered and
//! returned on it, its contribution to the return; the return per total wagered, the house edge per
//! initial unit, the element of risk, the average total wager and the hit frequency. Printed as
//! Markdown, CSV or JSON. Weights and amounts are exact integers over a common denominator; only
//! the printed percentages are floating point.
//!
//! A single bet (a side bet, a Nutz box) stakes one unit on every outcome, so its return per
//! wagered and its house edge agree. A game where the player raises or bets more on some outcomes
//! (Caribbean Stud, Mississippi Stud) wagers more than one unit on those rows: the sheet then tells
//! the house edge per initial unit (the ante) from the element of risk (per total wagered).

use serde_json::json;

/// One outcome row of a PAR sheet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParRow {
    /// The paytable row (or outcome) id.
    pub row: String,
    /// How many equally likely outcomes (or weight over `denominator`) give this row.
    pub count: u128,
    /// Σ over those outcomes of the amount wagered, in units of the initial stake.
    pub wagered: u128,
    /// Σ over those outcomes of the amount paid back, stake included (0 for a loss).
    pub returned: u128,
    /// Σ over those outcomes of the square of the amount wagered: with `wagered` and `returned`,
    /// the second moment of the row. Every outcome of a row pays back the same multiple of what
    /// it wagered (`returned / wagered`), so Σ net² over the row is this × (that multiple − 1)².
    pub wagered_sq: u128,
}

impl ParRow {
    /// A row of a single bet: one unit staked, `pays_per_unit` paid back (stake included).
    pub(crate) fn single(row: impl Into<String>, count: u128, pays_per_unit: u128) -> ParRow {
        ParRow {
            row: row.into(),
            count,
            wagered: count,
            returned: count * pays_per_unit,
            wagered_sq: count,
        }
    }

    /// A row whose every one of `count` outcomes wagers `wagered` units and is paid back
    /// `returned` units (stake included).
    pub(crate) fn uniform(
        row: impl Into<String>,
        count: u128,
        wagered: u128,
        returned: u128,
    ) -> ParRow {
        ParRow {
            row: row.into(),
            count,
            wagered: count * wagered,
            returned: count * returned,
            wagered_sq: count * wagered * wagered,
        }
    }

    /// Σ over the row's outcomes of the square of the net result (paid back − wagered), in
    /// initial units squared.
    fn net_sq(&self) -> f64 {
        if self.wagered == 0 {
            return 0.0;
        }
        let multiple = self.returned as f64 / self.wagered as f64 - 1.0;
        self.wagered_sq as f64 * multiple * multiple
    }

    /// What one unit wagered on this row pays back, stake included (0 for a row never reached).
    pub(crate) fn pays_per_wagered(&self) -> f64 {
        if self.wagered == 0 {
            0.0
        } else {
            self.returned as f64 / self.wagered as f64
        }
    }
}

/// A PAR sheet for one bet or one game's main wagers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParSheet {
    /// What the sheet is for ("nutz / box_one_pair", "fortune_pai_gow / fortune_bonus").
    pub title: String,
    /// The bets it covers, as simulation reports name them: "main" (the ante and what follows
    /// it), "bonus", "fortune_bonus", or a Nutz box.
    pub bets: String,
    /// Whether the numbers assume the lab's optimal strategy (otherwise no decision matters).
    pub optimal_play: bool,
    /// The configuration id the numbers come from.
    pub config_id: String,
    /// The rows, paying and losing; their counts sum to `denominator`.
    pub rows: Vec<ParRow>,
    /// The total weight of all outcomes.
    pub denominator: u128,
    /// Anything a reader needs to know about how the sheet was computed (strategy, stake).
    pub notes: Vec<String>,
}

impl ParSheet {
    /// Σ returned over all rows, exactly.
    pub fn returned(&self) -> u128 {
        self.rows.iter().map(|r| r.returned).sum()
    }

    /// Σ wagered over all rows, exactly (`denominator` for a single bet).
    pub fn wagered(&self) -> u128 {
        self.rows.iter().map(|r| r.wagered).sum()
    }

    /// The return per unit wagered (all wagers of the hand counted).
    pub fn return_rate(&self) -> f64 {
        self.returned() as f64 / self.wagered() as f64
    }

    /// The average total wager per hand, in units of the initial stake.
    pub fn average_wager(&self) -> f64 {
        self.wagered() as f64 / self.denominator as f64
    }

    /// The player's expected loss per initial unit (the house edge as casinos quote it).
    pub fn house_edge(&self) -> f64 {
        (self.wagered() as f64 - self.returned() as f64) / self.denominator as f64
    }

    /// The player's expected loss per unit wagered (1 − return).
    pub fn element_of_risk(&self) -> f64 {
        1.0 - self.return_rate()
    }

    /// The variance of one hand's net result (paid back − wagered) per initial unit: Σ p·net² −
    /// (house edge)². With the number of hands and the stakes it is what the spread of an actual
    /// return around [`ParSheet::return_rate`] should be.
    pub fn variance(&self) -> f64 {
        let second: f64 =
            self.rows.iter().map(ParRow::net_sq).sum::<f64>() / self.denominator as f64;
        let mean = self.house_edge();
        (second - mean * mean).max(0.0)
    }

    /// The standard deviation of one hand's net result per initial unit.
    pub fn standard_deviation(&self) -> f64 {
        self.variance().sqrt()
    }

    /// The probability that the hand pays something back (a win or a push).
    pub fn hit_frequency(&self) -> f64 {
        let hits: u128 = self
            .rows
            .iter()
            .filter(|r| r.returned > 0)
            .map(|r| r.count)
            .sum();
        hits as f64 / self.denominator as f64
    }

    /// The row with this id.
    pub fn row(&self, id: &str) -> Option<&ParRow> {
        self.rows.iter().find(|r| r.row == id)
    }

    /// As Markdown.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "## {}\n\nconfiguration `{}`\n\n",
            self.title, self.config_id
        );
        for note in &self.notes {
            out += &format!("- {note}\n");
        }
        if !self.notes.is_empty() {
            out += "\n";
        }
        out += "| row | count | probability | wagered (avg) | pays per 1 wagered | contribution |\n| --- | ---: | ---: | ---: | ---: | ---: |\n";
        for r in &self.rows {
            let p = r.count as f64 / self.denominator as f64;
            let average = if r.count == 0 {
                0.0
            } else {
                r.wagered as f64 / r.count as f64
            };
            out += &format!(
                "| {} | {} | {:.10} | {:.4} | {:.4} | {:.6} % |\n",
                r.row,
                r.count,
                p,
                average,
                r.pays_per_wagered(),
                r.returned as f64 / self.wagered() as f64 * 100.0
            );
        }
        out += &format!(
            "\nreturned {} / wagered {} = **{:.4} %** of the total wagered; house edge {:.4} % per initial unit; element of risk {:.4} %; average total wager {:.4} units; hit frequency {:.4} %; variance {:.4} and standard deviation {:.4} per initial unit\n",
            self.returned(),
            self.wagered(),
            self.return_rate() * 100.0,
            self.house_edge() * 100.0,
            self.element_of_risk() * 100.0,
            self.average_wager(),
            self.hit_frequency() * 100.0,
            self.variance(),
            self.standard_deviation()
        );
        out
    }

    /// As CSV (one line per row, then a `total` line).
    pub fn csv(&self) -> String {
        let mut out = String::from("sheet,row,count,denominator,wagered,returned,wagered_sq\n");
        for r in &self.rows {
            out += &format!(
                "{},{},{},{},{},{},{}\n",
                self.title, r.row, r.count, self.denominator, r.wagered, r.returned, r.wagered_sq
            );
        }
        out += &format!(
            "{},total,{},{},{},{},{}\n",
            self.title,
            self.rows.iter().map(|r| r.count).sum::<u128>(),
            self.denominator,
            self.wagered(),
            self.returned(),
            self.rows.iter().map(|r| r.wagered_sq).sum::<u128>()
        );
        out
    }

    /// As JSON (exact integers as strings, since they can pass 2^53).
    pub fn json(&self) -> serde_json::Value {
        json!({
            "title": self.title,
            "config_id": self.config_id,
            "notes": self.notes,
            "denominator": self.denominator.to_string(),
            "rows": self.rows.iter().map(|r| json!({
                "row": r.row,
                "count": r.count.to_string(),
                "wagered": r.wagered.to_string(),
                "returned": r.returned.to_string(),
                "wagered_sq": r.wagered_sq.to_string(),
                "probability": r.count as f64 / self.denominator as f64,
            })).collect::<Vec<_>>(),
            "wagered": self.wagered().to_string(),
            "returned": self.returned().to_string(),
            "return": self.return_rate(),
            "house_edge": self.house_edge(),
            "element_of_risk": self.element_of_risk(),
            "average_wager": self.average_wager(),
            "hit_frequency": self.hit_frequency(),
            "variance": self.variance(),
            "standard_deviation": self.standard_deviation(),
        })
    }
}
