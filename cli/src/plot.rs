//! The balance chart: per-node bars of key ownership, one bar per configuration, against the
//! fair-share line, as SVG (plotters; text is left to the viewer's fonts).

use std::path::Path;

use keyroute_bindings::ErrorCode;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::{CliError, Result};
use crate::report::{Report, pct};

/// Bar colours, light to dark: more points per node reads as a darker, more even bar.
const BLUES: [RGBColor; 6] = [
    RGBColor(198, 219, 239),
    RGBColor(158, 202, 225),
    RGBColor(107, 174, 214),
    RGBColor(49, 130, 189),
    RGBColor(8, 81, 156),
    RGBColor(8, 48, 107),
];
const FAIR: RGBColor = RGBColor(214, 39, 40);
const INK: RGBColor = RGBColor(40, 40, 40);
const FONT: &str = "sans-serif";

/// Writes the chart for `report` to `path`, whole or not at all (`output::write_file`).
pub fn balance_svg(report: &Report, path: &Path) -> Result<()> {
    let nodes = report.ids.len();
    let groups = report.rows.len().max(1);
    let per_node = if nodes <= 12 { groups * 18 + 24 } else { (groups * 10 + 10).max(LABEL_PITCH as usize + 2) };
    let width = (180 + nodes * per_node).clamp(900, 3000) as u32;
    let labels = Labels::new(&report.ids, width, 180);
    // The plot keeps its height however much room the node ids take below it.
    let height = 536 + labels.area();
    let failed = |e: &dyn std::fmt::Display| CliError::new(ErrorCode::Io, format!("writing {}: {e}", path.display()));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        draw(report, &labels, &root).map_err(|e| failed(&e))?;
        root.present().map_err(|e| failed(&e))?;
    }
    crate::output::write_file(path, svg.as_bytes())
}

type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A chart of one bar group per node: `n` nodes across, shares in % up to `y_max` upwards, the
/// node ids' room below (`labels`).
fn share_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    caption: &str,
    labels: &Labels,
    n: usize,
    y_max: f64,
    y_labels: usize,
) -> std::result::Result<Chart<'a, 'b>, Box<dyn std::error::Error>> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 15).into_font().color(&RGBColor(90, 90, 90)))
        .margin_left(20)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(labels.area())
        .y_label_area_size(70)
        .build_cartesian_2d(-0.6f64..(n as f64 - 0.4), 0.0f64..y_max)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("share of keys (%)")
        .y_label_formatter(&|v| if y_max < 5.0 { format!("{v:.1}%") } else { format!("{v:.0}%") })
        .label_style((FONT, 14).into_font().color(&INK))
        .axis_desc_style((FONT, 16).into_font().color(&INK))
        .y_labels(y_labels)
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()?;
    Ok(chart)
}

/// The series' legend, in the upper right corner, as every chart here draws it.
fn legend<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>) -> DrawResult {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .margin(12)
        .legend_area_size(22)
        .background_style(WHITE.mix(0.92))
        .border_style(RGBColor(190, 190, 190))
        .label_font((FONT, 14).into_font().color(&INK))
        .draw()?;
    Ok(())
}

/// Pixels a vertical node label needs across (a 14 px font's line).
const LABEL_PITCH: f64 = 16.0;
/// Longest node id drawn whole under a bar; longer ones end in `…`.
const LABEL_CHARS: usize = 28;

/// How node ids go under their bars: across while they fit, else turned upright (so a label
/// needs one line's width, not its length), and every k-th one only when even that collides.
struct Labels {
    upright: bool,
    /// Characters of the longest id drawn.
    chars: usize,
}

impl Labels {
    /// For `ids` under a chart `width` pixels wide, `margins` of which are not the plot.
    fn new(ids: &[String], width: u32, margins: u32) -> Self {
        let chars = ids.iter().map(|id| id.chars().count()).max().unwrap_or(1).min(LABEL_CHARS);
        let px_per_node = f64::from(width.saturating_sub(margins)) / ids.len().max(1) as f64;
        Self { upright: chars as f64 * 7.5 + 10.0 > px_per_node, chars }
    }

    /// The label area's height under the plot, for the ids and the axis name.
    fn area(&self) -> u32 {
        if self.upright { (self.chars as f64 * 7.5) as u32 + 56 } else { 64 }
    }

    /// Draws the ids of bars `0..n` under `chart` (on `root`), then the axis name.
    fn draw(
        &self,
        root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
        chart: &Chart<'_, '_>,
        ids: &[String],
        n: usize,
    ) -> DrawResult {
        let zero = chart.plotting_area().get_base_pixel().1 + chart.plotting_area().dim_in_pixel().1 as i32;
        let x_of = |i: f64| chart.backend_coord(&(i, 0.0)).0;
        let px_per_node = f64::from((x_of(1.0) - x_of(0.0)).max(1));
        let every = if self.upright {
            (LABEL_PITCH / px_per_node).ceil().max(1.0) as usize
        } else {
            ((self.chars as f64 * 7.5 + 10.0) / px_per_node).ceil().max(1.0) as usize
        };
        let font = (FONT, 14).into_font().color(&INK);
        for (i, id) in ids.iter().enumerate().step_by(every) {
            let x = x_of(i as f64);
            if self.upright {
                let shown = if id.chars().count() > LABEL_CHARS {
                    id.chars().take(LABEL_CHARS - 1).chain(['…']).collect()
                } else {
                    id.clone()
                };
                // Turned a quarter left, reading upwards, its end at the axis.
                let style = font.clone().transform(FontTransform::Rotate270).pos(Pos::new(HPos::Right, VPos::Center));
                root.draw(&Text::new(shown, (x, zero + 8), style))?;
            } else {
                root.draw(&Text::new(id.clone(), (x, zero + 10), font.clone().pos(Pos::new(HPos::Center, VPos::Top))))?;
            }
        }
        let axis_style = (FONT, 16).into_font().color(&INK).pos(Pos::new(HPos::Center, VPos::Bottom));
        let note = match every {
            1 => "node".to_owned(),
            2 => "node (every other one labelled)".to_owned(),
            3 => "node (every 3rd labelled)".to_owned(),
            k => format!("node (every {k}th labelled)"),
        };
        let (left, right) = (x_of(-0.6), x_of(n as f64 - 0.4));
        let bottom = zero + self.area() as i32 - 4;
        root.draw(&Text::new(note, ((left + right) / 2, bottom), axis_style))?;
        Ok(())
    }
}

fn draw(report: &Report, labels: &Labels, root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> DrawResult {
    root.fill(&WHITE)?;
    let n = report.ids.len();
    let groups = report.rows.len().max(1);
    let top = report
        .rows
        .iter()
        .flat_map(|r| r.shares.iter().copied())
        .chain(report.fair.iter().copied())
        .fold(0.0f64, f64::max);
    // Headroom above the tallest bar for the legend.
    let y_max = (top * 100.0 * 1.35).max(1.0);
    let titled =
        root.titled(&format!("Key ownership per node: {}", report.title), (FONT, 26).into_font().color(&INK))?;
    let mut chart = share_chart(
        &titled,
        "exact share of the key-hash space per node; dashed: the node's fair share (weight / total)",
        labels,
        n,
        y_max,
        8,
    )?;

    let slot = 0.8 / groups as f64;
    for (g, row) in report.rows.iter().enumerate() {
        // Spread the groups over the palette, lightest usable to darkest.
        let color = match groups {
            1 => BLUES[3],
            _ if groups < BLUES.len() => BLUES[1 + (g * (BLUES.len() - 2) + (groups - 2) / 2) / (groups - 1)],
            _ => BLUES[g % BLUES.len()],
        };
        let bars = row.shares.iter().enumerate().map(move |(i, &s)| {
            let x0 = i as f64 - 0.4 + g as f64 * slot;
            Rectangle::new([(x0 + slot * 0.06, 0.0), (x0 + slot * 0.94, s * 100.0)], color.filled())
        });
        let own = if row.own && groups > 1 { " (the spec's)" } else { "" };
        let label =
            format!("{}{own}: CV {}, max/mean {:.2}", row.label, pct(row.balance.cv), row.balance.max_over_mean);
        chart
            .draw_series(bars)?
            .label(label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
    }

    // The fair share: one line when every node has the same, a step per node otherwise.
    let fair_style = ShapeStyle::from(&FAIR).stroke_width(2);
    let uniform = report.fair.windows(2).all(|w| (w[0] - w[1]).abs() < 1e-12);
    let segments: Vec<Vec<(f64, f64)>> = if uniform {
        let f = report.fair.first().copied().unwrap_or(0.0) * 100.0;
        vec![vec![(-0.6, f), (n as f64 - 0.4, f)]]
    } else {
        report
            .fair
            .iter()
            .enumerate()
            .map(|(i, &f)| vec![(i as f64 - 0.46, f * 100.0), (i as f64 + 0.46, f * 100.0)])
            .collect()
    };
    for (k, seg) in segments.into_iter().enumerate() {
        let series = chart.draw_series(DashedLineSeries::new(seg, 9, 5, fair_style))?;
        if k == 0 {
            let fair_label = if uniform {
                format!("fair share: {:.2}% each", report.fair.first().copied().unwrap_or(0.0) * 100.0)
            } else {
                "fair share of each node (weight / total)".to_owned()
            };
            series.label(fair_label).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], fair_style));
        }
    }
    legend(&mut chart)?;

    labels.draw(root, &chart, &report.ids, n)?;
    Ok(())
}

/// Line colours of the load chart, one per configuration (plain first, in grey).
const LINES: [RGBColor; 4] =
    [RGBColor(150, 150, 150), RGBColor(31, 119, 180), RGBColor(255, 127, 14), RGBColor(44, 160, 44)];

/// The load chart of `keyroute simulate` without `--to`: per window of `window` requests, the
/// busiest node's load over its fair share, one line per configuration.
pub fn load_svg(title: &str, window: u64, series: &[(String, Vec<f64>)], path: &Path) -> Result<()> {
    let failed = |e: &dyn std::fmt::Display| CliError::new(ErrorCode::Io, format!("writing {}: {e}", path.display()));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 520)).into_drawing_area();
        draw_load(title, window, series, &root).map_err(|e| failed(&e))?;
        root.present().map_err(|e| failed(&e))?;
    }
    crate::output::write_file(path, svg.as_bytes())
}

fn draw_load(
    title: &str,
    window: u64,
    series: &[(String, Vec<f64>)],
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
) -> DrawResult {
    root.fill(&WHITE)?;
    let windows = series.iter().map(|(_, w)| w.len()).max().unwrap_or(1).max(2);
    let top = series.iter().flat_map(|(_, w)| w.iter().copied()).fold(1.0f64, f64::max);
    // Headroom above the highest line for the legend.
    let y_max = top * 1.5 + 0.3;
    let titled =
        root.titled("Busiest node's load over its fair share, per window", (FONT, 24).into_font().color(&INK))?;
    let mut chart = ChartBuilder::on(&titled)
        .caption(title, (FONT, 15).into_font().color(&RGBColor(90, 90, 90)))
        .margin_left(20)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..(windows as f64), 0.0f64..y_max)?;
    chart
        .configure_mesh()
        .x_desc(format!("requests (windows of {})", crate::report::thousands(window)))
        .x_label_formatter(&|x| {
            let requests = x * window as f64;
            if requests >= 1e6 { format!("{:.1}M", requests / 1e6) } else { format!("{:.0}k", requests / 1e3) }
        })
        .y_desc("busiest node / fair share")
        .y_label_formatter(&|v| format!("{v:.1}"))
        .label_style((FONT, 14).into_font().color(&INK))
        .axis_desc_style((FONT, 16).into_font().color(&INK))
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()?;
    let fair_style = ShapeStyle::from(&FAIR).stroke_width(2);
    chart
        .draw_series(DashedLineSeries::new(vec![(0.0, 1.0), (windows as f64, 1.0)], 9, 5, fair_style))?
        .label("perfect balance (1.0)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], fair_style));
    for (k, (label, values)) in series.iter().enumerate() {
        let style = ShapeStyle::from(&LINES[k % LINES.len()]).stroke_width(2);
        chart
            .draw_series(LineSeries::new(values.iter().enumerate().map(|(i, &v)| (i as f64 + 0.5, v)), style))?
            .label(label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], style));
    }
    legend(&mut chart)?;
    Ok(())
}

/// What `keyroute plan --plot` draws: each node's share before and after the change, and the
/// shares of keys flowing from each old owner to each new one.
pub struct PlanPicture {
    /// The two sides, in a few words each, for the title.
    pub title: String,
    /// A's ids, then B's ids that A lacks.
    pub ids: Vec<String>,
    /// Share of keys per node (by `ids`) before and after (at the plan's progress).
    pub before: Vec<f64>,
    pub after: Vec<f64>,
    /// `(from, to, share)` by `ids` index, at the plan's progress; `from == to` is what stays.
    pub flows: Vec<(usize, usize, f64)>,
    /// The moved share at the plan's progress.
    pub moved: f64,
    /// `(from, to, keys, bytes)` that a migration counted on the servers, when given.
    pub counted: Vec<(String, String, u64, u64)>,
}

/// Destination colours of the moved keys' bands (cycled).
const FLOWS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];
const BEFORE: RGBColor = RGBColor(189, 189, 189);
const AFTER: RGBColor = RGBColor(8, 81, 156);

/// Writes the plan chart to `path`, whole or not at all.
pub fn plan_svg(picture: &PlanPicture, path: &Path) -> Result<()> {
    let nodes = picture.ids.len();
    let width = (180 + nodes * 28).clamp(1000, 3000) as u32;
    let labels = Labels::new(&picture.ids, width, 180);
    let bars = 400 + labels.area();
    // Room for every node's block and id on both sides.
    let flows = (400 + nodes * 8).clamp(560, 1400) as u32;
    let counted =
        if picture.counted.is_empty() { 0 } else { 120 + 22 * picture.counted.len().min(COUNTED_ROWS) as u32 };
    let failed = |e: &dyn std::fmt::Display| CliError::new(ErrorCode::Io, format!("writing {}: {e}", path.display()));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, bars + flows + counted)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| failed(&e))?;
        let (top, rest) = root.split_vertically(bars);
        let (middle, bottom) = rest.split_vertically(flows);
        draw_shares(picture, &labels, &top).map_err(|e| failed(&e))?;
        draw_flows(picture, &middle).map_err(|e| failed(&e))?;
        if counted > 0 {
            draw_counted(&picture.counted, &bottom).map_err(|e| failed(&e))?;
        }
        root.present().map_err(|e| failed(&e))?;
    }
    crate::output::write_file(path, svg.as_bytes())
}

fn draw_shares(
    p: &PlanPicture,
    labels: &Labels,
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
) -> DrawResult {
    let n = p.ids.len();
    let top = p.before.iter().chain(&p.after).copied().fold(0.0f64, f64::max);
    let y_max = (top * 100.0 * 1.3).max(1.0);
    let titled = root.titled(&format!("The change: {}", p.title), (FONT, 24).into_font().color(&INK))?;
    let caption = format!("each node's share of keys before and after; {} of keys move", pct(p.moved));
    let mut chart = share_chart(&titled, &caption, labels, n, y_max, 6)?;
    for (k, (values, color, label)) in
        [(&p.before, BEFORE, "before"), (&p.after, AFTER, "after")].into_iter().enumerate()
    {
        let x0 = -0.4 + k as f64 * 0.4;
        let bars = values.iter().enumerate().map(move |(i, &s)| {
            Rectangle::new([(i as f64 + x0 + 0.03, 0.0), (i as f64 + x0 + 0.37, s * 100.0)], color.filled())
        });
        chart
            .draw_series(bars)?
            .label(label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
    }
    legend(&mut chart)?;
    labels.draw(root, &chart, &p.ids, n)?;
    Ok(())
}

/// The flows: old owners stacked on the left by their share before, new owners on the right by
/// their share after, a band between them for each from → to share (grey: keys that stay).
fn draw_flows(p: &PlanPicture, area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> DrawResult {
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (f64::from(w), f64::from(h));
    area.draw(&Text::new(
        "Where the keys go: owner before (left) → owner after (right); grey keys stay",
        ((w / 2.0) as i32, 8),
        (FONT, 18).into_font().color(&INK).pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    let n = p.ids.len();
    let (top, bottom) = (44.0, h - 16.0);
    let gap = (120.0 / n.max(1) as f64).min(4.0);
    let scale = (bottom - top - gap * n.saturating_sub(1) as f64).max(1.0);
    let (left, right) = (w * 0.22, w * 0.78);
    let column = 14.0;
    // Where each node's block starts on each side.
    let starts = |shares: &[f64]| -> Vec<f64> {
        let mut y = top;
        shares
            .iter()
            .map(|&s| {
                let at = y;
                y += s * scale + if s > 0.0 { gap } else { 0.0 };
                at
            })
            .collect()
    };
    let (from_at, to_at) = (starts(&p.before), starts(&p.after));
    // Bands leave each old owner in the new owners' order and reach each new owner in the old
    // owners' order, so no two bands of one node cross at its block.
    let mut out_off = from_at.clone();
    let mut in_off = to_at.clone();
    let mut by_source = p.flows.clone();
    by_source.sort_by_key(|&(i, j, _)| (i, j));
    let mut bands = Vec::with_capacity(by_source.len());
    for &(i, j, s) in &by_source {
        let (Some(o), Some(_)) = (out_off.get_mut(i), in_off.get(j)) else { continue };
        bands.push((i, j, *o, s * scale));
        *o += s * scale;
    }
    bands.sort_by_key(|&(i, j, _, _)| (j, i));
    for (i, j, y_from, thick) in bands {
        let Some(y_to) = in_off.get_mut(j) else { continue };
        let color = if i == j { BEFORE.mix(0.55) } else { FLOWS[j % FLOWS.len()].mix(0.7) };
        area.draw(&Polygon::new(band(left + column, y_from, right, *y_to, thick), color.filled()))?;
        *y_to += thick;
    }
    // The blocks and their ids, where a block is tall enough to hold one.
    let font = (FONT, 13).into_font().color(&INK);
    for (side, at, shares) in [(0, &from_at, &p.before), (1, &to_at, &p.after)] {
        let x = if side == 0 { left } else { right };
        for (u, (&y, &s)) in at.iter().zip(shares.iter()).enumerate() {
            if s <= 0.0 {
                continue;
            }
            let color = if side == 0 { RGBColor(110, 110, 110) } else { FLOWS[u % FLOWS.len()] };
            let y1 = y + s * scale;
            area.draw(&Rectangle::new(
                [(x as i32, y as i32), ((x + column) as i32, y1.max(y + 1.0) as i32)],
                color.filled(),
            ))?;
            if s * scale >= 11.0 {
                let (lx, anchor) = if side == 0 { (x - 6.0, HPos::Right) } else { (x + column + 6.0, HPos::Left) };
                let text = format!("{} {}", p.ids.get(u).map_or("", String::as_str), pct(s));
                area.draw(&Text::new(
                    text,
                    (lx as i32, ((y + y1) / 2.0) as i32),
                    font.clone().pos(Pos::new(anchor, VPos::Center)),
                ))?;
            }
        }
    }
    Ok(())
}

/// Most flows the counted panel lists (the largest by bytes).
const COUNTED_ROWS: usize = 20;

/// What a migration counted on the servers: one bar per from → to flow, by bytes, largest
/// first, with its keys and bytes written beside it.
fn draw_counted(
    counted: &[(String, String, u64, u64)],
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
) -> DrawResult {
    let (w, _) = area.dim_in_pixel();
    let w = f64::from(w);
    let mut rows: Vec<&(String, String, u64, u64)> = counted.iter().collect();
    rows.sort_by(|a, b| b.3.cmp(&a.3).then(b.2.cmp(&a.2)));
    let (keys, bytes) = counted.iter().fold((0u64, 0u64), |(k, b), f| (k + f.2, b + f.3));
    let shown = rows.len().min(COUNTED_ROWS);
    let title = format!(
        "Counted on the servers: {} keys, {} bytes move{}",
        crate::report::thousands(keys),
        crate::report::thousands(bytes),
        if rows.len() > shown { format!(" (the {shown} largest of {} flows)", rows.len()) } else { String::new() }
    );
    area.draw(&Text::new(
        title,
        ((w / 2.0) as i32, 16),
        (FONT, 18).into_font().color(&INK).pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    let most = rows.first().map_or(1, |r| r.3.max(1)) as f64;
    let (left, right) = (w * 0.3, w * 0.7);
    let font = (FONT, 13).into_font().color(&INK);
    for (k, (from, to, n, b)) in rows.into_iter().take(shown).map(|r| (&r.0, &r.1, r.2, r.3)).enumerate() {
        let y = 60 + 22 * k as i32;
        area.draw(&Text::new(
            format!("{from} → {to}"),
            ((left - 8.0) as i32, y + 8),
            font.clone().pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
        let end = left + (right - left) * b as f64 / most;
        area.draw(&Rectangle::new([(left as i32, y), (end.max(left + 1.0) as i32, y + 16)], AFTER.filled()))?;
        let text = format!("{} keys, {} bytes", crate::report::thousands(n), crate::report::thousands(b));
        area.draw(&Text::new(text, ((end + 8.0) as i32, y + 8), font.clone().pos(Pos::new(HPos::Left, VPos::Center))))?;
    }
    Ok(())
}

/// A band `thick` pixels high from `(x0, y0)` to `(x1, y1)` (its top edge), bending smoothly.
fn band(x0: f64, y0: f64, x1: f64, y1: f64, thick: f64) -> Vec<(i32, i32)> {
    const STEPS: usize = 24;
    let edge = |t: f64, dy: f64| {
        let s = t * t * (3.0 - 2.0 * t);
        ((x0 + (x1 - x0) * t) as i32, (y0 + (y1 - y0) * s + dy) as i32)
    };
    let thick = thick.max(0.6);
    let mut points: Vec<(i32, i32)> = (0..=STEPS).map(|k| edge(k as f64 / STEPS as f64, 0.0)).collect();
    points.extend((0..=STEPS).rev().map(|k| edge(k as f64 / STEPS as f64, thick)));
    points
}
