#pragma once
#include <string>
#include <vector>

namespace mine {

// Where a code cell of a notebook landed in the joined module.
struct NotebookCell {
  int index = 0;       // position among all cells of the notebook, 0-based (as nbformat counts)
  int first_line = 0;  // 1-based line of the joined module where the cell starts
  int lines = 0;
};

// A notebook's code cells joined, in order, into one Python module.
struct NotebookModule {
  std::string text;
  std::vector<NotebookCell> cells;

  // (cell index, 1-based line within the cell) of a line of `text`; (-1, 0) between cells.
  std::pair<int, int> locate(int line) const;
};

// Reads an .ipynb file (nbformat 4, or 3's worksheets). IPython magics and `!` shell lines become
// `pass` statements (keeping line numbers and indentation), so the module parses as Python;
// cells in another language (`%%bash`, `%%html`, ...) become comments. Throws mine::Error when
// the text is not a notebook.
NotebookModule read_notebook(const std::string& json_text);

}  // namespace mine
