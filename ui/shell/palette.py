"""The models' colours, shared by the plotly figures and the Learn page's SVG pictures (which
need no plotly)."""

#: Model colours: a colour-blind-safe qualitative palette (Okabe–Ito and Tol hues) that leaves
#: out the green and red that mean better and worse; a model keeps its colour (its position in
#: the data set's model order) on every page and in the report.
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#CC79A7",
    "#56B4E9",
    "#332288",
    "#999933",
    "#882255",
    "#6699CC",
    "#DDAA33",
    "#777777",
)
