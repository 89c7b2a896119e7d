//! The balance chart: per-node bars of key ownership, one bar per configuration, against the
//! fair-share line, as SVG (plotters; text is left to the viewer's fonts).

use std::path::Path;

use keyroute_bindings::ErrorCode;
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
    let per_node = if nodes <= 12 { groups * 18 + 24 } else { groups * 10 + 10 };
    let width = (180 + nodes * per_node).clamp(900, 3000) as u32;
    let height = 600u32;
    let failed = |e: &dyn std::fmt::Display| CliError::new(ErrorCode::Io, format!("writing {}: {e}", path.display()));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        draw(report, &root).map_err(|e| failed(&e))?;
        root.present().map_err(|e| failed(&e))?;
    }
    crate::output::write_file(path, svg.as_bytes())
}

type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

fn draw(report: &Report, root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> DrawResult {
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
    let mut chart = ChartBuilder::on(&titled)
        .caption(
            "exact share of the key-hash space per node; dashed: the node's fair share (weight / total)",
            (FONT, 15).into_font().color(&RGBColor(90, 90, 90)),
        )
        .margin_left(20)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(64)
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
        .y_labels(8)
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()?;

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
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .margin(12)
        .legend_area_size(22)
        .background_style(WHITE.mix(0.92))
        .border_style(RGBColor(190, 190, 190))
        .label_font((FONT, 14).into_font().color(&INK))
        .draw()?;

    // Node ids under their bars (every k-th one when they would collide), then the axis name.
    let px_per_node = {
        let (a, b) = (chart.backend_coord(&(0.0, 0.0)), chart.backend_coord(&(1.0, 0.0)));
        f64::from((b.0 - a.0).max(1))
    };
    let longest = report.ids.iter().map(|id| id.chars().count()).max().unwrap_or(1) as f64;
    let every = ((longest * 7.5 + 10.0) / px_per_node).ceil().max(1.0) as usize;
    let label_style = (FONT, 14).into_font().color(&INK).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, id) in report.ids.iter().enumerate().step_by(every) {
        let (x, y) = chart.backend_coord(&(i as f64, 0.0));
        root.draw(&Text::new(id.clone(), (x, y + 10), label_style.clone()))?;
    }
    let (left, _) = chart.backend_coord(&(-0.6, 0.0));
    let (right, bottom) = chart.backend_coord(&(n as f64 - 0.4, 0.0));
    let axis_style = (FONT, 16).into_font().color(&INK).pos(Pos::new(HPos::Center, VPos::Top));
    let note = match every {
        1 => "node".to_owned(),
        2 => "node (every other one labelled)".to_owned(),
        3 => "node (every 3rd labelled)".to_owned(),
        k => format!("node (every {k}th labelled)"),
    };
    root.draw(&Text::new(note, ((left + right) / 2, bottom + 36), axis_style))?;
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
