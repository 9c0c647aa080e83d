//! The dispute packet of genuine hands of each game (played by the engine from the scripted hands
//! of `fixtures/hands`): every figure in the element that names it, the paytable rows applied, a
//! cap that bound, a void and why it was allowed, the cards and dice as pictures, the verdict and
//! the offline commands; and for every page, that it fetches nothing, runs nothing, escapes hostile
//! text, closes every element and comes out the same twice.

mod common;

use common::{
    assert_self_contained, field, packet, packet_of, play, row, section, Script, FIRST_SEQUENCE,
    HAND_ID, PUBLIC_KEY,
};
use pitboss_engine::config::{GameConfig, Rules};
use pitboss_engine::money::Money;
use pitboss_packet::{render, Mismatch};

/// Mississippi Stud with the ante's cap lowered to 10 000.00, so that the royal's ante line is cut.
fn lower_ante_cap(config: &mut GameConfig) {
    if let Rules::MississippiStud(rules) = &mut config.rules {
        rules.ante_cap = Some(Money(1_000_000));
    }
}

fn capped_royal() -> pitboss_packet::Packet {
    packet_of(&play(
        "ms_royal_akq_max_bets",
        &Script {
            config: Some(lower_ante_cap),
            ..Script::default()
        },
    ))
}

#[test]
fn a_capped_royal_shows_every_figure_in_its_field() {
    let packet = capped_royal();
    let page = render(&packet);
    assert_self_contained(&page);

    // The ante: 50.00 at 500 to 1 is 25 050.00 uncapped; the 10 000.00 cap cuts 15 050.00.
    assert_eq!(field(&page, "lines[0].stake"), Some("50.00"));
    assert_eq!(field(&page, "lines[0].uncapped"), Some("25050.00"));
    assert_eq!(field(&page, "lines[0].cap"), Some("10000.00"));
    assert_eq!(field(&page, "lines[0].cut"), Some("15050.00"));
    assert_eq!(field(&page, "lines[0].payout"), Some("10000.00"));
    // Each street: 150.00 at 500 to 1, under its cap of 75 150.00.
    for i in 1..=3 {
        assert_eq!(
            field(&page, &format!("lines[{i}].payout")),
            Some("75150.00")
        );
        assert_eq!(field(&page, &format!("lines[{i}].cut")), Some("0.00"));
    }
    // The bonus: 50.00 at 50 to 1 for the mini royal.
    assert_eq!(field(&page, "lines[4].payout"), Some("2550.00"));
    // 10 000.00 + 3 × 75 150.00 + 2 550.00 = 238 000.00, under the 250 000.00 game cap.
    assert_eq!(field(&page, "game_cap.total_before"), Some("238000.00"));
    assert_eq!(field(&page, "game_cap.cut"), Some("0.00"));
    assert_eq!(field(&page, "total_staked"), Some("550.00"));
    assert_eq!(field(&page, "total_paid"), Some("238000.00"));
    assert_eq!(field(&page, "net"), Some("+237450.00"));
    assert!(page.contains(r#"data-field="total_paid" value="23800000">"#));

    // The cut line is flagged; the others are not.
    let ante = row(&page, r#"data-bet="ante""#).expect("the ante's row");
    assert!(
        ante.contains("class=\"cap-bound\"") && ante.contains("CAP BOUND"),
        "{ante}"
    );
    let street = row(&page, r#"data-bet="street_3""#).expect("a street's row");
    assert!(!street.contains("CAP BOUND"), "{street}");
    assert_eq!(page.matches("CAP BOUND").count(), 1);
}

#[test]
fn the_rows_applied_are_highlighted_and_no_other() {
    let page = render(&capped_royal());
    let paytables = section(&page, "paytable").expect("the paytable section");
    let royal = row(paytables, r#"data-hand="royal_flush""#).expect("the royal's row");
    assert!(royal.contains("class=\"applied\""), "{royal}");
    assert!(
        royal.contains("applied: Ante, 3rd street, 4th street, 5th street"),
        "{royal}"
    );
    assert!(royal.contains("500 to 1"));
    let mini = row(paytables, r#"data-hand="mini_royal""#).expect("the bonus's row");
    assert!(mini.contains("class=\"applied\"") && mini.contains("applied: Bonus"));
    let flush = row(paytables, r#"data-hand="flush""#).expect("the flush's row");
    assert!(!flush.contains("applied"), "{flush}");
    assert_eq!(paytables.matches("class=\"applied\"").count(), 2);
    assert!(paytables.contains("Royal flush"), "ids are made readable");
    // The caps configured are listed, with the lowered ante cap.
    assert_eq!(field(&page, "caps.ante_cap"), Some("10000.00"));
    assert_eq!(field(&page, "caps.game_cap"), Some("250000.00"));
}

#[test]
fn a_row_applies_to_its_own_table_only() {
    // The fold loses the ante; the bonus pays on its straight. "straight" is a row of both the
    // main paytable and the bonus paytable: only the bonus's is applied.
    let page = render(&packet("ms_fold_bonus_pays"));
    let main = page
        .split("data-table=\"paytable\"")
        .nth(1)
        .and_then(|rest| rest.split("</table>").next())
        .expect("the main paytable");
    assert!(
        !main.contains("class=\"applied\""),
        "nothing on the main table applied"
    );
    let bonus = page
        .split("data-table=\"bonus_paytable\"")
        .nth(1)
        .and_then(|rest| rest.split("</table>").next())
        .expect("the bonus paytable");
    let straight = row(bonus, r#"data-hand="straight""#).expect("the straight's row");
    assert!(straight.contains("class=\"applied\"") && straight.contains("applied: Bonus"));
    assert_eq!(field(&page, "lines[0].payout"), Some("0.00"));
    assert_eq!(field(&page, "lines[1].payout"), Some("35.00"));
    assert_eq!(field(&page, "net"), Some("+20.00"));
    // The community cards were turned after the fold, on the 3rd street decision.
    let cards = section(&page, "cards").unwrap();
    assert!(cards.contains("dealt face down; face up at entry"));
    assert!(
        cards.contains("after the 3rd street decision (fold)"),
        "{cards}"
    );
}

#[test]
fn mississippi_cards_are_drawn_with_when_they_were_seen() {
    let packet = capped_royal();
    let page = render(&packet);
    let cards = section(&page, "cards").expect("the cards section");
    // Player: Ts Js; community: Qs Ks As, each turned after its street's decision.
    let ace = cards
        .split("<svg")
        .find(|svg| svg.contains("data-card=\"As\""))
        .expect("the ace of spades is drawn");
    assert!(ace.contains(">A</text>") && ace.contains(">♠</text>"));
    assert!(ace.contains("fill=\"#000000\">♠<"), "spades are black");
    assert!(cards.contains("data-card=\"Ts\"") && cards.contains(">10</text>"));
    assert_eq!(cards.matches("class=\"card face\"").count(), 5);
    assert_eq!(cards.matches("class=\"card back\"").count(), 0);
    assert!(cards.contains("after the 3rd street decision (bet 3× the ante)"));
    assert!(cards.contains("after the 5th street decision (bet 3× the ante)"));
    assert!(cards.contains(&format!(
        "Ten of spades<br>face up at entry {}",
        FIRST_SEQUENCE + 1
    )));
    let community = cards.find("data-seat=\"community\"").unwrap();
    assert!(cards.find("data-seat=\"player\"").unwrap() < community);
    // Hand header: dates in UTC.
    let hand = section(&page, "hand").unwrap();
    assert!(hand.contains("2023-11-14 22:13:20.000 UTC"), "opened");
    assert!(
        hand.contains("2023-11-14 22:13:23.000 UTC"),
        "ended at the last decision"
    );
    assert!(hand.contains(HAND_ID));
    assert!(hand.contains(&packet.config_id));
    assert!(page.contains("<h1>Dispute packet — Mississippi Stud</h1>"));
}

#[test]
fn a_malfunction_void_shows_why_and_what_is_paid_now() {
    let page = render(&packet("ms_royal_akq_max_bets_malfunction_void"));
    assert_self_contained(&page);
    let void = section(&page, "void").expect("the void section");
    assert_eq!(field(void, "void.kind"), Some("malfunction"));
    assert_eq!(
        field(void, "void.allowed_because"),
        Some("malfunction voids all pays and plays: the settlement is reversed and every stake refunded")
    );
    assert!(void.contains("Malfunction voids all pays and plays."));
    assert!(void.contains("operator-7"));
    assert!(void.contains("no second approval recorded"));
    assert!(void.contains("2023-11-14 22:13:30.000 UTC"));
    assert_eq!(field(void, "void.lines[0].paid_before"), Some("25050.00"));
    assert_eq!(field(void, "void.lines[0].paid_now"), Some("50.00"));
    assert_eq!(field(void, "void.paid_before"), Some("250000.00"));
    assert_eq!(field(void, "void.paid_now"), Some("550.00"));
    assert_eq!(field(void, "void.adjustment"), Some("-249450.00"));
    assert_eq!(field(void, "void.net"), Some("0.00"));
    assert_eq!(field(void, "void.game_cap.cut"), Some("3050.00"));
    // The settlement it reversed is still shown, its game cap binding.
    let settlement = section(&page, "settlement").unwrap();
    assert!(settlement.contains("reversed by the void below"));
    assert_eq!(field(settlement, "game_cap.cut"), Some("3050.00"));
    assert!(settlement.contains("CAP BOUND"));
    assert_eq!(field(settlement, "total_paid"), Some("250000.00"));
    // The sections come in their order.
    let order = [
        "hand",
        "cards",
        "timeline",
        "paytable",
        "settlement",
        "void",
        "verdict",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|id| page.find(&format!("<section id=\"{id}\">")).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
}

#[test]
fn a_conduct_forfeit_is_not_called_a_malfunction() {
    let page = render(&packet("cs_dealer_not_qualifying_conduct_forfeit"));
    let void = section(&page, "void").expect("the void section");
    assert_eq!(field(void, "void.kind"), Some("conduct forfeit"));
    assert!(!void.contains("Malfunction voids all pays and plays"));
    assert!(field(void, "void.allowed_because")
        .unwrap()
        .starts_with("conduct rule broken"));
    assert_eq!(field(void, "void.paid_now"), Some("0.00"));
    assert!(section(&page, "settlement")
        .unwrap()
        .contains("voided before settlement"));
    // The dealer's four face-down cards were never shown: drawn as backs.
    let cards = section(&page, "cards").unwrap();
    assert_eq!(cards.matches("class=\"card back\"").count(), 4);
    assert!(cards.contains("face down: never shown during the hand"));
}

#[test]
fn hostile_text_is_escaped_everywhere() {
    let hostile = "<script>alert(1)</script>";
    let quote = "\"'><img src=x onerror=alert(2)>";
    let played = play(
        "ms_royal_akq_max_bets_malfunction_void",
        &Script {
            table: Some(hostile.into()),
            player: Some(quote.into()),
            void_reason: Some(format!("reels {hostile} & stuck")),
            recorded_by: Some(quote.into()),
            config: None,
        },
    );
    let mut packet = packet_of(&played);
    packet.events[1].actor = hostile.into();
    packet.events[2].note = quote.into();
    packet.verdict.report.push(hostile.into());
    packet.verdict.problems.push(quote.into());
    packet.verdict.checkpoint.note = hostile.into();
    packet.verdict.mismatches.push(Mismatch {
        sequence: 7,
        event: hostile.into(),
        field: quote.into(),
        recorded: hostile.into(),
        rederived: quote.into(),
    });
    let page = render(&packet);
    assert_self_contained(&page);
    assert!(!page.to_ascii_lowercase().contains("<img"));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;"));
    assert!(page.contains("reels &lt;script&gt;alert(1)&lt;/script&gt; &amp; stuck"));
    // In the header, the timeline, the void and the verdict alike.
    for id in ["hand", "timeline", "void", "verdict"] {
        assert!(
            section(&page, id).unwrap().contains("&lt;script&gt;")
                || section(&page, id).unwrap().contains("&lt;img"),
            "{id}"
        );
    }
}

#[test]
fn fortune_pai_gow_draws_the_joker_and_both_settings() {
    let page = render(&packet("pg_royal_ace_joker_exception"));
    assert_self_contained(&page);
    let cards = section(&page, "cards").expect("the cards section");
    let joker = cards
        .split("<svg")
        .find(|svg| svg.contains("data-card=\"JK\""))
        .expect("the joker is drawn");
    assert!(joker.contains("JOKER") && joker.contains("class=\"star\""));
    assert!(joker.contains("#6a1b9a"), "the joker has its own colour");
    assert!(!joker.contains("#c00000") && !joker.contains("fill=\"#000000\""));
    // Hearts are red.
    let ace = cards
        .split("<svg")
        .find(|svg| svg.contains("data-card=\"Ah\""))
        .unwrap();
    assert!(ace.contains("fill=\"#c00000\">♥<"));
    // Both settings, each a high five and a low two; the dealer's by the house way's rule.
    let player = cards
        .split("<div class=\"setting\" data-seat=\"player\">")
        .nth(1)
        .expect("the player's setting");
    assert!(player.contains("auto-set by the house way"));
    let high = player.split("data-row=\"high\"").nth(1).unwrap();
    let high = high.split("data-row=\"low\"").next().unwrap();
    assert_eq!(high.matches("class=\"card face\"").count(), 5);
    let low = player.split("data-row=\"low\"").nth(1).unwrap();
    let low = low.split("</div>").next().unwrap();
    assert_eq!(low.matches("class=\"card face\"").count(), 2);
    assert!(low.contains("data-card=\"Jh\"") && low.contains("data-card=\"Qh\""));
    let dealer = cards
        .split("<div class=\"setting\" data-seat=\"dealer\">")
        .nth(1)
        .expect("the dealer's setting");
    assert!(dealer.contains("set by the house way (bally-atlantic-city-2026.2): rule "));
    let dealer_low = dealer.split("data-row=\"low\"").nth(1).unwrap();
    assert!(dealer_low.contains("data-card=\"Ts\"") && dealer_low.contains("data-card=\"Jc\""));
    // Main bet (both hands win) and the bonus royal are applied.
    let paytables = section(&page, "paytable").unwrap();
    let main = row(paytables, r#"data-hand="both_hands_win""#).unwrap();
    assert!(main.contains("class=\"applied\"") && main.contains("applied: Main"));
    assert_eq!(paytables.matches("class=\"applied\"").count(), 2);
    assert_eq!(field(&page, "lines[0].payout"), Some("20.00"));
    assert_eq!(field(&page, "lines[1].payout"), Some("151.00"));
    assert_eq!(field(&page, "total_paid"), Some("171.00"));
}

#[test]
fn nutz_draws_every_shake_with_its_pips_and_held_dice() {
    let packet = packet("nutz_one_pair_after_three_shakes");
    let page = render(&packet);
    assert_self_contained(&page);
    let dice = section(&page, "cards").expect("the dice section");
    assert!(dice.contains("<h2>The dice</h2>"));
    let shakes: Vec<&str> = dice.split("<div class=\"shake\"").skip(1).collect();
    assert_eq!(shakes.len(), 3);
    let recorded: Vec<([u8; 5], Vec<u8>)> = packet
        .events
        .iter()
        .filter_map(|e| match &e.event {
            pitboss_engine::games::Event::DiceShaken { faces, held, .. } => {
                Some((*faces, held.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(recorded[0].0, [6, 1, 5, 2, 1], "the fixture's first shake");
    for (shake, (faces, held)) in shakes.iter().zip(&recorded) {
        let drawn: Vec<&str> = shake.split("<svg").skip(1).collect();
        assert_eq!(drawn.len(), 5);
        for (svg, face) in drawn.iter().zip(faces) {
            assert!(svg.contains(&format!("data-face=\"{face}\"")));
            let pips = svg
                .split("</svg>")
                .next()
                .unwrap()
                .matches("class=\"pip\"")
                .count();
            assert_eq!(pips, usize::from(*face));
        }
        assert_eq!(shake.matches("class=\"die held\"").count(), held.len());
        assert_eq!(shake.matches(">HELD<").count(), held.len());
    }
    // The ones are held after the first shake (dice 2 and 5).
    assert!(shakes[0].contains("Held for the next shake: dice 2 and 5."));
    assert!(shakes[1].contains("Rolled: dice 1, 3 and 4."));
    assert!(shakes[2].contains("Held: dice 2 and 5. The round is over."));
    let paytables = section(&page, "paytable").unwrap();
    let pair = row(paytables, r#"data-hand="one_pair""#).unwrap();
    assert!(pair.contains("class=\"applied\"") && pair.contains("applied: Box: one pair"));
    assert_eq!(paytables.matches("class=\"applied\"").count(), 1);
    assert_eq!(field(&page, "lines[0].payout"), Some("78.00"));
    assert_eq!(field(&page, "lines[1].payout"), Some("0.00"));
    assert_eq!(field(&page, "total_paid"), Some("78.00"));
}

#[test]
fn a_completed_nutz_hand_shows_its_completion() {
    let page = render(&packet("nutz_incomplete_completed_by_dealer"));
    assert_self_contained(&page);
    let completion = section(&page, "completion").expect("the completion section");
    let because = field(completion, "completion.allowed_because").unwrap();
    assert!(
        because.contains("completed by dealer shakes and settled"),
        "{because}"
    );
    assert!(section(&page, "void").is_none());
    let dice = section(&page, "cards").unwrap();
    assert!(dice.contains("by the dealer"));
    assert!(section(&page, "timeline")
        .unwrap()
        .contains("Completed by the incomplete-game rule"));
}

#[test]
fn caribbean_stud_applies_the_ante_win() {
    let page = render(&packet("cs_dealer_not_qualifying"));
    assert_self_contained(&page);
    let paytables = section(&page, "paytable").unwrap();
    let ante = row(paytables, r#"data-hand="ante_wins""#).unwrap();
    assert!(ante.contains("class=\"applied\"") && ante.contains("applied: Ante"));
    assert!(ante.contains("1 to 1"));
    assert_eq!(paytables.matches("class=\"applied\"").count(), 1);
    assert_eq!(field(&page, "lines[1].payout"), Some("20.00"));
    assert_eq!(field(&page, "total_paid"), Some("40.00"));
    assert_eq!(field(&page, "net"), Some("+9.00"));
    let cards = section(&page, "cards").unwrap();
    assert_eq!(cards.matches("class=\"card face\"").count(), 10);
}

#[test]
fn the_timeline_has_one_row_per_entry_with_its_checks() {
    let mut packet = capped_royal();
    packet.events[0].actor = String::new();
    packet.events[1].signature_ok = false;
    packet.events[1].note = "key revoked before this entry".into();
    let page = render(&packet);
    let timeline = section(&page, "timeline").unwrap();
    assert_eq!(
        timeline.matches("<tr data-sequence=").count(),
        packet.events.len()
    );
    let first = row(timeline, &format!("data-sequence=\"{FIRST_SEQUENCE}\"")).unwrap();
    assert!(first.contains("data-kind=\"opened\""));
    assert!(
        first.contains("<td>—<br>"),
        "no actor shows a dash: {first}"
    );
    assert!(first.contains("wagers: Ante 50.00 EUR, Bonus 50.00 EUR"));
    assert!(first.contains("2023-11-14 22:13:20.000 UTC"));
    let second = row(
        timeline,
        &format!("data-sequence=\"{}\"", FIRST_SEQUENCE + 1),
    )
    .unwrap();
    assert!(second.contains(r#"data-check="signature">✗ no"#));
    assert!(second.contains(r#"data-check="in_checkpoint">✓ yes"#));
    assert!(second.contains("key revoked before this entry"));
    assert!(timeline.contains("Player acted: bet 3× the ante, staking 3rd street 150.00 EUR."));
    assert!(timeline.contains("Settled: 550.00 EUR staked, 238000.00 EUR paid in all"));
    assert!(timeline.contains("Seed revealed: "));
    // The broken signature fails the verdict.
    let verdict = section(&page, "verdict").unwrap();
    assert!(verdict.contains("class=\"verdict fail\""));
    assert!(verdict.contains(&format!(
        "Entry {}: its signature does not verify.",
        FIRST_SEQUENCE + 1
    )));
}

#[test]
fn the_verdict_says_consistent_and_how_to_check_it_offline() {
    let packet = capped_royal();
    let page = render(&packet);
    let verdict = section(&page, "verdict").unwrap();
    assert!(verdict.contains("class=\"verdict ok\""));
    let size = packet.verdict.checkpoint.tree_size;
    assert!(verdict.contains(&format!(
        "Consistent: the replay from the seed re-derives every event, every signature and link is good, and every entry of this hand is in the signed checkpoint of {size} entries."
    )));
    assert!(verdict.contains(&format!(
        "<pre><code>pitboss verify-bundle hand-{HAND_ID}.bundle.json --key {PUBLIC_KEY}</code></pre>"
    )));
    assert!(verdict.contains(&format!(
        "<pre><code>python3 fixtures/reference/verify_bundle.py hand-{HAND_ID}.bundle.json {PUBLIC_KEY}</code></pre>"
    )));
    assert!(verdict.contains("Pin the public key from a source you trust"));
    assert!(verdict.contains("<pre class=\"note\">pitboss.test/log\n"));
    assert!(verdict.contains("<li>every event re-derived from the seed</li>"));
    assert_eq!(
        field(verdict, "checkpoint.tree_size"),
        Some(size.to_string().as_str())
    );
}

#[test]
fn mismatches_and_problems_fail_the_verdict() {
    let mut packet = capped_royal();
    packet.verdict.consistent = false;
    packet.verdict.mismatches.push(Mismatch {
        sequence: FIRST_SEQUENCE + 5,
        event: "settled".into(),
        field: "lines[0].payout".into(),
        recorded: "1000000".into(),
        rederived: "2505000".into(),
    });
    packet
        .verdict
        .problems
        .push("entry 1004: not in the checkpoint".into());
    let page = render(&packet);
    let verdict = section(&page, "verdict").unwrap();
    assert!(verdict.contains("class=\"verdict fail\""));
    assert!(!verdict.contains("class=\"verdict ok\""));
    assert!(verdict.contains(&format!(
        "<li>Entry {} (settled), field lines[0].payout: recorded 1000000, re-derived 2505000.</li>",
        FIRST_SEQUENCE + 5
    )));
    assert!(verdict.contains("<li>entry 1004: not in the checkpoint</li>"));
    assert!(verdict.contains("The replay from the seed is not consistent with the log."));
}

#[test]
fn a_shell_hostile_bundle_name_is_quoted_in_the_commands() {
    let mut packet = capped_royal();
    packet.verdict.bundle_file = "my hand's bundle.json".into();
    let page = render(&packet);
    assert!(page.contains(&format!(
        "pitboss verify-bundle &#39;my hand&#39;\\&#39;&#39;s bundle.json&#39; --key {PUBLIC_KEY}"
    )));
}

#[test]
fn every_game_renders_the_same_page_twice() {
    for name in [
        "ms_royal_akq_max_bets",
        "ms_fold_bonus_pays",
        "pg_copy_goes_to_dealer",
        "nutz_later_nutz",
        "cs_stand_off",
        "cs_fold_forfeits_bonus_incomplete_after_30_days",
        "ms_push_pair_of_sixes_to_tens_incomplete_boundary",
    ] {
        let packet = packet(name);
        let first = render(&packet);
        assert_eq!(first, render(&packet.clone()), "{name}");
        assert_self_contained(&first);
        assert!(first.contains(HAND_ID), "{name}");
    }
}

/// Writes sample pages for people to look at: the capped Mississippi Stud royal's page where
/// `PITBOSS_PACKET_SAMPLE` says (`PITBOSS_PACKET_SAMPLE=/tmp/packet-sample.html cargo test …`), and
/// one page of each other game into the directory `PITBOSS_PACKET_SAMPLES` names. Does nothing
/// without them: tests write no files of their own accord.
#[test]
fn sample_pages() {
    let page = render(&capped_royal());
    assert_self_contained(&page);
    if let Ok(path) = std::env::var("PITBOSS_PACKET_SAMPLE") {
        std::fs::write(&path, &page).expect("the sample page is written");
    }
    if let Ok(dir) = std::env::var("PITBOSS_PACKET_SAMPLES") {
        for name in [
            "ms_royal_akq_max_bets_malfunction_void",
            "pg_royal_ace_joker_exception",
            "nutz_one_pair_after_three_shakes",
            "nutz_incomplete_completed_by_dealer",
            "cs_dealer_not_qualifying",
        ] {
            let path = std::path::Path::new(&dir).join(format!("packet-{name}.html"));
            std::fs::write(path, render(&packet(name))).expect("a sample page is written");
        }
    }
}
