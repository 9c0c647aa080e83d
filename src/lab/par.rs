//! A PAR sheet: every paytable row with its exact probability (a fraction), what it pays, its
//! contribution to the return; the return, the house edge and the hit frequency. Printed as
//! Markdown, CSV or JSON. Probabilities are exact integers over a common denominator; only the
//! printed percentages are floating point.

use serde_json::json;

/// One paytable row of a PAR sheet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParRow {
    /// The paytable row (or outcome) id.
    pub row: String,
    /// How many equally likely outcomes (or weight over `denominator`) give this row.
    pub count: u128,
    /// What one unit staked pays back on this row, stake included (0 for a loss).
    pub pays_per_unit: u128,
}

/// A PAR sheet for one bet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParSheet {
    /// What the sheet is for ("nutz / box_one_pair", "fortune_pai_gow / fortune_bonus").
    pub title: String,
    /// The configuration id the numbers come from.
    pub config_id: String,
    /// The rows, paying and losing; their counts sum to `denominator`.
    pub rows: Vec<ParRow>,
    /// The total weight of all outcomes.
    pub denominator: u128,
}

impl ParSheet {
    /// Σ count × pays, exactly: the return is this over `denominator`.
    pub fn returned(&self) -> u128 {
        self.rows.iter().map(|r| r.count * r.pays_per_unit).sum()
    }

    /// The return per unit staked.
    pub fn return_rate(&self) -> f64 {
        self.returned() as f64 / self.denominator as f64
    }

    /// 1 − return.
    pub fn house_edge(&self) -> f64 {
        1.0 - self.return_rate()
    }

    /// The probability that the bet pays something (wins or pushes).
    pub fn hit_frequency(&self) -> f64 {
        let hits: u128 = self
            .rows
            .iter()
            .filter(|r| r.pays_per_unit > 0)
            .map(|r| r.count)
            .sum();
        hits as f64 / self.denominator as f64
    }

    /// As Markdown.
    pub fn markdown(&self) -> String {
        let mut out = format!("## {}\n\nconfiguration `{}`\n\n| row | count | probability | pays (per 1) | contribution |\n| --- | ---: | ---: | ---: | ---: |\n", self.title, self.config_id);
        for r in &self.rows {
            let p = r.count as f64 / self.denominator as f64;
            out += &format!(
                "| {} | {} | {:.10} | {} | {:.6} % |\n",
                r.row,
                r.count,
                p,
                r.pays_per_unit,
                p * r.pays_per_unit as f64 * 100.0
            );
        }
        out += &format!(
            "\nreturn {} / {} = **{:.4} %**; house edge {:.4} %; hit frequency {:.4} %\n",
            self.returned(),
            self.denominator,
            self.return_rate() * 100.0,
            self.house_edge() * 100.0,
            self.hit_frequency() * 100.0
        );
        out
    }

    /// As CSV (one line per row, then a `total` line).
    pub fn csv(&self) -> String {
        let mut out = String::from("sheet,row,count,denominator,pays_per_unit\n");
        for r in &self.rows {
            out += &format!(
                "{},{},{},{},{}\n",
                self.title, r.row, r.count, self.denominator, r.pays_per_unit
            );
        }
        out += &format!(
            "{},total_returned,{},{},\n",
            self.title,
            self.returned(),
            self.denominator
        );
        out
    }

    /// As JSON.
    pub fn json(&self) -> serde_json::Value {
        json!({
            "title": self.title,
            "config_id": self.config_id,
            "denominator": self.denominator.to_string(),
            "rows": self.rows.iter().map(|r| json!({
                "row": r.row,
                "count": r.count.to_string(),
                "pays_per_unit": r.pays_per_unit.to_string(),
            })).collect::<Vec<_>>(),
            "returned": self.returned().to_string(),
            "return": self.return_rate(),
            "house_edge": self.house_edge(),
            "hit_frequency": self.hit_frequency(),
        })
    }
}
