if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
python train.py
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
