// replaced by the widgets
