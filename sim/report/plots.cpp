#include "sim/report/plots.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "sim/report/csv.h"
#include "sim/workload/paths.h"

namespace pacml::sim {
namespace {

std::string gp(const std::string& s) {
  return gnuplot_string(s);
}

// Labels without blanks for gnuplot's word(); underscores are shown as is with noenhanced.
std::string token(std::string s) {
  for (char& c : s)
    if (c == ' ' || c == '\t') c = '_';
  return s;
}

// The tokens of `items`, blank-separated: a gnuplot word list.
std::string word_list(const std::vector<std::string>& items) {
  std::string words;
  for (const std::string& item : items) words += (words.empty() ? "" : " ") + token(item);
  return words;
}

}  // namespace

bool gnuplot_available() {
  return std::system("gnuplot --version >/dev/null 2>&1") == 0;
}

std::string gnuplot_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string run_gnuplot(const std::string& dir, const std::string& name, const std::string& script,
                        const std::string& pngs) {
  write_text_file(dir + "/" + name, script);
  if (!gnuplot_available())
    return "gnuplot not found (Debian: apt-get install gnuplot-nox): no PNG plots; the data and " +
           dir + "/" + name + " are written — run 'gnuplot " + name + "' in " + dir +
           " once it is installed";
  const std::string log = name.substr(0, name.rfind('.')) + ".log";  // plots.gp -> plots.log
  const std::string command =
      "cd " + shell_quote(dir) + " && gnuplot " + name + " >" + log + " 2>&1";
  if (std::system(command.c_str()) != 0)
    return "gnuplot failed (see " + dir + "/" + log + "); CSV and JSON results are complete";
  return "plots: " + pngs;
}

namespace {

// The policies and the β distributions of an evaluation, in order of first appearance.
struct PlotAxes {
  std::vector<std::string> policies, betas;
};

PlotAxes plot_axes(const std::vector<GroupSummary>& groups) {
  PlotAxes axes;
  for (const GroupSummary& g : groups) {
    if (std::find(axes.policies.begin(), axes.policies.end(), g.policy) == axes.policies.end())
      axes.policies.push_back(g.policy);
    if (std::find(axes.betas.begin(), axes.betas.end(), g.beta_dist) == axes.betas.end())
      axes.betas.push_back(g.beta_dist);
  }
  return axes;
}

// blocking.dat: policy, then (mean, ci) per β.
std::string blocking_data(const PlotAxes& axes, const std::vector<GroupSummary>& groups) {
  std::ostringstream blocking;
  blocking << "# policy";
  for (const std::string& b : axes.betas) blocking << " mean_" << token(b) << " ci_" << token(b);
  blocking << "\n";
  for (const std::string& p : axes.policies) {
    blocking << gp(p);
    for (const std::string& b : axes.betas) {
      auto it = std::find_if(groups.begin(), groups.end(), [&](const GroupSummary& g) {
        return g.policy == p && g.beta_dist == b;
      });
      if (it == groups.end())
        blocking << " NaN NaN";
      else
        blocking << ' ' << csv_number(it->blocking_rate.mean) << ' '
                 << csv_number(it->blocking_rate.ci95);
    }
    blocking << "\n";
  }
  return blocking.str();
}

// occupancy.dat: one index block per (β, policy), β-major.
std::string occupancy_data(const PlotAxes& axes, const PlotData& data) {
  std::ostringstream occupancy;
  for (const std::string& b : axes.betas)
    for (const std::string& p : axes.policies) {
      occupancy << "# " << p << " / " << b << "\n";
      auto o = data.occupancy.find({p, b});
      if (o != data.occupancy.end())
        for (const OccupancySample& s : o->second)
          occupancy << csv_number(s.time) << ' ' << s.occupied << "\n";
      if (o == data.occupancy.end() || o->second.empty()) occupancy << "NaN NaN\n";
      occupancy << "\n\n";
    }
  return occupancy.str();
}

// jct.dat: the JCT CDF (at most 400 points) in one index block per (β,
// policy), β-major.
std::string jct_data(const PlotAxes& axes, const PlotData& data) {
  std::ostringstream jct;
  for (const std::string& b : axes.betas)
    for (const std::string& p : axes.policies) {
      jct << "# " << p << " / " << b << "\n";
      auto j = data.jcts.find({p, b});
      std::vector<double> values = j == data.jcts.end() ? std::vector<double>() : j->second;
      std::sort(values.begin(), values.end());
      const size_t n = values.size(), points = std::min<size_t>(n, 400);
      for (size_t k = 0; k < points; ++k) {
        const size_t i = points == 1 ? n - 1 : k * (n - 1) / (points - 1);
        jct << csv_number(values[i]) << ' ' << csv_number(static_cast<double>(i + 1) / n) << "\n";
      }
      if (n == 0) jct << "NaN NaN\n";
      jct << "\n\n";
    }
  return jct.str();
}

// plots.gp: the blocking bars, then a panel per β distribution of occupancy
// and of the JCT CDF.
std::string plots_script(const PlotAxes& axes, const PlotData& data) {
  const size_t nb = axes.betas.size(), np = axes.policies.size();
  const size_t cols = nb > 1 ? 2 : 1, rows = (nb + cols - 1) / cols;
  std::ostringstream s;
  s << "# Generated by pacml evaluate; rerun with: gnuplot plots.gp\n"
    << "set terminal pngcairo noenhanced size 1000,600 font ',10'\n"
    << "policies = " << gp(word_list(axes.policies)) << "\nbetas = " << gp(word_list(axes.betas))
    << "\n"
    << "set output 'blocking_rate.png'\n"
    << "set title "
    << gp("Blocking rate (mean, 95% CI)" + (data.title.empty() ? "" : " — " + data.title)) << "\n"
    << "set style data histogram\nset style histogram errorbars gap 2 lw 1\nset style fill solid "
       "0.7 border -1\n"
    << "set ylabel 'blocking rate'\nset yrange [0:*]\nset xtics rotate by -30\nset key outside "
       "right\n"
    << "plot for [i=1:" << nb
    << "] 'blocking.dat' using (column(2*i)):(column(2*i+1)):xtic(1) title 'β '.word(betas,i)\n"
    << "unset style\nset style data lines\nunset xtics\nset xtics\nset yrange [*:*]\n"
    << "set terminal pngcairo noenhanced size " << (cols * 700) << "," << (rows * 450)
    << " font ',10'\n"
    << "set output 'occupancy.png'\n"
    << "set multiplot layout " << rows << "," << cols
    << " title 'Occupied servers over time (first seed)'\n"
    << "set xlabel 'time (" << data.time_unit
    << ")'\nset ylabel 'occupied servers'\nset yrange [0:" << data.servers << "]\n"
    << "do for [b=1:" << nb << "] {\n  set title 'β '.word(betas,b)\n"
    << "  plot for [p=1:" << np << "] 'occupancy.dat' index ((b-1)*" << np
    << "+p-1) using 1:2 with steps title word(policies,p)\n}\nunset multiplot\n"
    << "set output 'jct.png'\nset yrange [0:1]\nset logscale x\n"
    << "set multiplot layout " << rows << "," << cols
    << " title 'JCT of accepted jobs (CDF over all seeds)'\n"
    << "set xlabel 'JCT (" << data.time_unit << ")'\nset ylabel 'fraction of accepted jobs'\n"
    << "do for [b=1:" << nb << "] {\n  set title 'β '.word(betas,b)\n"
    << "  plot for [p=1:" << np << "] 'jct.dat' index ((b-1)*" << np
    << "+p-1) using 1:2 with lines title word(policies,p)\n}\nunset multiplot\n";
  return s.str();
}

}  // namespace

std::string write_plots(const std::string& dir, const PlotData& data) {
  const PlotAxes axes = plot_axes(data.groups);
  write_text_file(dir + "/blocking.dat", blocking_data(axes, data.groups));
  write_text_file(dir + "/occupancy.dat", occupancy_data(axes, data));
  write_text_file(dir + "/jct.dat", jct_data(axes, data));
  return run_gnuplot(dir, "plots.gp", plots_script(axes, data),
                     dir + "/blocking_rate.png, " + dir + "/occupancy.png, " + dir + "/jct.png");
}

namespace {

// NAME.dat: a row per category, (mean, ci) per series.
std::string bar_chart_data(const BarChart& chart) {
  std::ostringstream out;
  out << "# category";
  for (const std::string& s : chart.series) out << " mean_" << token(s) << " ci_" << token(s);
  out << "\n";
  for (size_t c = 0; c < chart.categories.size(); ++c) {
    out << gp(chart.categories[c]);
    for (const Stat& v : chart.values.at(c))
      out << ' ' << csv_number(v.mean) << ' ' << csv_number(v.ci95);
    out << "\n";
  }
  return out.str();
}

}  // namespace

std::string write_bar_charts(const std::string& dir, const std::string& script,
                             const std::vector<BarChart>& charts) {
  std::ostringstream s;
  std::string pngs;
  s << "# Generated by pacml; rerun with: gnuplot " << script << "\n"
    << "set terminal pngcairo noenhanced size 1000,600 font ',10'\n"
    << "set style data histogram\nset style histogram errorbars gap 2 lw 1\n"
    << "set style fill solid 0.7 border -1\nset yrange [0:*]\nset xtics rotate by -30\n"
    << "set key outside right\n";
  for (const BarChart& chart : charts) {
    write_text_file(dir + "/" + chart.name + ".dat", bar_chart_data(chart));
    s << "series = " << gp(word_list(chart.series)) << "\nset output '" << chart.name << ".png'\n"
      << "set title " << gp(chart.title) << "\nset ylabel " << gp(chart.ylabel) << "\n"
      << "plot for [i=1:" << chart.series.size() << "] '" << chart.name
      << ".dat' using (column(2*i)):(column(2*i+1)):xtic(1) title word(series,i)\n";
    pngs += (pngs.empty() ? "" : ", ") + dir + "/" + chart.name + ".png";
  }
  return run_gnuplot(dir, script, s.str(), pngs);
}

}  // namespace pacml::sim
