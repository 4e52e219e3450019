/* table.h — a table of plain text for a terminal: each column as wide as
 * what it holds, the last one running to the end of its line.  When the
 * lines would be wider than the terminal, the columns allowed to give way
 * are cut (with a "…"), then what still does not fit is cut at the edge:
 * a line is never wrapped, so no word breaks in two.  The table is drawn
 * into a document (view/doc.h) that the command line prints. */
#ifndef TABLE_H
#define TABLE_H

#include "view/doc.h"

enum table_align { TABLE_LEFT, TABLE_RIGHT };

struct table_col {
    const char *head;           /* its heading; NULL in every column: no heading row */
    enum table_align align;
    int least;                  /* > 0: it may be cut down to this many columns when the
                                 * lines are too wide (the last such column first); 0: it
                                 * is kept whole */
};

/* A row: the cells of every column, or a line of its own across the table
 * (a heading such as "Bonus: open once lab 08 has passed"). */
struct table_row {
    char **cells;               /* ncols strings; NULL for a line of its own */
    char *line;
};

struct table {
    const struct table_col *cols;
    int ncols;
    struct table_row *rows;
    int nrows;
    size_t cap;
    int oom;                    /* an allocation failed: the table is cut short */
};

void table_init(struct table *t, const struct table_col *cols, int ncols);
void table_free(struct table *t);

/* Adds a row of t->ncols cells (copied; NULL reads as ""). */
void table_add(struct table *t, const char *const *cells);
/* Adds a line of its own, not split into columns. */
void table_line(struct table *t, const char *text);

/* Draws the table into d, each row a line of at most width columns, gap
 * spaces between columns. */
void table_draw(const struct table *t, struct doc *d, int width, int gap);

#endif /* TABLE_H */
